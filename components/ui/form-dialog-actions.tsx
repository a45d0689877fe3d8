import type { ReactNode } from 'react';
import { Button } from './button';

type Props = {
  /** The submit button's label, and what it says while `pending` ("Save budget" / "Saving…"). */
  submitLabel: string;
  pendingLabel: string;
  /** While true both buttons are unavailable (the outcome is not known yet) but keep the focus (Button `pending`). */
  pending: boolean;
  onCancel: () => void;
  /** Buttons placed before Cancel, e.g. a secondary action pushed to the start with `mr-auto`. */
  children?: ReactNode;
};

/** A form dialog's button row: Cancel, then the form's submit button. The one row for every form in a Modal. */
export function FormDialogActions({ submitLabel, pendingLabel, pending, onCancel, children }: Props) {
  return (
    <div className="flex flex-wrap justify-end gap-2">
      {children}
      <Button type="button" variant="secondary" onClick={onCancel} pending={pending}>
        Cancel
      </Button>
      <Button type="submit" pending={pending}>
        {pending ? pendingLabel : submitLabel}
      </Button>
    </div>
  );
}
