'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useFormStatus } from 'react-dom';
import { Button } from './button';
import { Alert } from './misc';

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
  /** While true both buttons are disabled and Escape does nothing (the outcome is not known yet). */
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
 * The one "are you sure?" dialog: a native modal <dialog> (the page behind is inert, Tab stays inside, Escape is
 * the browser's own cancel). Cancel gets focus first, so Enter never confirms a destructive step by accident; when
 * the dialog closes, focus goes back to what had it before (the button that opened it).
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
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const returnFocusTo = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const descriptionId = useId();
  // Read inside native event handlers, which are bound once.
  const latest = useRef({ pending, onCancel });
  useEffect(() => {
    latest.current = { pending, onCancel };
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocusTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  // Give focus back on close, and on unmount while open (e.g. the row that owned the dialog was deleted).
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const restore = () => {
      const target = returnFocusTo.current;
      returnFocusTo.current = null;
      if (target?.isConnected) target.focus();
    };
    // Escape: the browser fires `cancel`; while pending it is refused, otherwise the parent decides to close.
    const onCancelEvent = (event: Event) => {
      event.preventDefault();
      if (!latest.current.pending) latest.current.onCancel();
    };
    dialog.addEventListener('cancel', onCancelEvent);
    dialog.addEventListener('close', restore);
    return () => {
      dialog.removeEventListener('cancel', onCancelEvent);
      dialog.removeEventListener('close', restore);
      if (dialog.open) restore();
    };
  }, []);

  const cancel = () => {
    if (!pending) onCancel();
  };

  const buttons = (
    <div className="mt-5 flex flex-wrap justify-end gap-2">
      <Button ref={cancelRef} variant="secondary" onClick={cancel} disabled={pending}>
        {cancelLabel}
      </Button>
      {action ? (
        <SubmitButton tone={tone} label={confirmLabel} pendingLabel={pendingLabel ?? confirmLabel} />
      ) : (
        <Button variant={tone} onClick={onConfirm} disabled={pending}>
          {pending ? (pendingLabel ?? confirmLabel) : confirmLabel}
        </Button>
      )}
    </div>
  );

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      // A click on the backdrop lands on the <dialog> itself (the panel fills it): treat it as Cancel.
      onClick={(e) => e.target === e.currentTarget && cancel()}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100 dark:backdrop:bg-black/60"
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-lg font-semibold wrap-anywhere text-zinc-900 dark:text-zinc-50">
            {title}
          </h2>
          <div id={descriptionId} className="mt-2 text-sm wrap-anywhere text-zinc-600 dark:text-zinc-300">
            {description}
          </div>
          {error ? (
            <div className="mt-3">
              <Alert>{error}</Alert>
            </div>
          ) : null}
          {action ? <form action={action}>{buttons}</form> : buttons}
        </div>
      ) : null}
    </dialog>
  );
}

function SubmitButton({ tone, label, pendingLabel }: { tone: 'danger' | 'primary'; label: string; pendingLabel: string }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant={tone} disabled={pending}>
      {pending ? pendingLabel : label}
    </Button>
  );
}
