'use client';

import { useRef, type ReactNode } from 'react';
import { useFormStatus } from 'react-dom';
import { Button } from './button';
import { Alert } from './misc';
import { Modal } from './modal';

export type ConfirmDialogProps = {
  open: boolean;
  title: ReactNode;
  /** What will happen, in plain words; the dialog's accessible description. */
  description: ReactNode;
  /** The confirm button's label, e.g. "Delete agent". */
  confirmLabel: string;
  /** The cancel button's label; "Cancel" unless the choice reads better named ("Keep team"). */
  cancelLabel?: string;
  /** Shown on the confirm button while `pending`, e.g. "Deleting…". */
  pendingLabel?: string;
  /**
   * While true both buttons are unavailable (aria-disabled, clicks ignored, focus kept where it is) and Escape does
   * nothing (the outcome is not known yet).
   */
  pending?: boolean;
  /** Why the last attempt failed; shown inside the dialog, which stays open. */
  error?: string | null;
  tone?: 'danger' | 'primary';
  onCancel: () => void;
  /** Called by the confirm button; omit when `action` is given. */
  onConfirm?: () => void;
  /** A server action: the buttons sit in a <form action>, so confirming works without client JS state. */
  action?: (formData: FormData) => void | Promise<void>;
};

/**
 * The one "are you sure?" dialog, on the kit's Modal (a native modal <dialog>). Cancel gets focus first, so Enter
 * never confirms a destructive step by accident; Escape cancels; focus returns to the button that opened it.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  cancelLabel = 'Cancel',
  pendingLabel,
  pending = false,
  error,
  tone = 'danger',
  onCancel,
  onConfirm,
  action,
}: ConfirmDialogProps) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const cancel = () => {
    if (!pending) onCancel();
  };

  const buttons = (
    <div className="mt-5 flex flex-wrap justify-end gap-2">
      <Button ref={cancelRef} variant="secondary" onClick={cancel} pending={pending}>
        {cancelLabel}
      </Button>
      {action ? (
        <SubmitButton tone={tone} label={confirmLabel} pendingLabel={pendingLabel ?? confirmLabel} />
      ) : (
        <Button variant={tone} onClick={onConfirm} pending={pending}>
          {pending ? (pendingLabel ?? confirmLabel) : confirmLabel}
        </Button>
      )}
    </div>
  );

  return (
    <Modal open={open} title={title} description={description} onClose={cancel} busy={pending} initialFocus={cancelRef}>
      {error ? (
        <div className="mt-3">
          <Alert>{error}</Alert>
        </div>
      ) : null}
      {action ? <form action={action}>{buttons}</form> : buttons}
    </Modal>
  );
}

function SubmitButton({ tone, label, pendingLabel }: { tone: 'danger' | 'primary'; label: string; pendingLabel: string }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant={tone} pending={pending}>
      {pending ? pendingLabel : label}
    </Button>
  );
}
