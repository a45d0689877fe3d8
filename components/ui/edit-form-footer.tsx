import { Button } from './button';
import { Alert } from './misc';

/** The end of an "Edit …" form shown in place: Save changes, Cancel, and the refusal no field took. */
export function EditFormFooter({ pending, error, onCancel }: { pending: boolean; error: string | null | undefined; onCancel: () => void }) {
  return (
    <>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" pending={pending}>
          {pending ? 'Saving…' : 'Save changes'}
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
      {error ? <Alert>{error}</Alert> : null}
    </>
  );
}
