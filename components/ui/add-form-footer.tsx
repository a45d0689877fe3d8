import { Button } from './button';
import { Alert } from './misc';

/**
 * The end of an "Add …" form: its submit button, the refusal no field took, and, once added, a status naming what
 * was added (read by screen readers as it appears).
 */
export function AddFormFooter({ label, pending, error, added }: { label: string; pending: boolean; error: string | null | undefined; added: string | null | undefined }) {
  return (
    <>
      <Button type="submit" pending={pending}>
        {pending ? 'Adding…' : label}
      </Button>
      {error ? <Alert>{error}</Alert> : null}
      {added ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          Added {added}.
        </p>
      ) : null}
    </>
  );
}
