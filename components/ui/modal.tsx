'use client';

import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';
import { cn } from './cn';
import { rememberFocus } from './focus-return';

export type ModalProps = {
  open: boolean;
  title: ReactNode;
  /** The dialog's accessible description, under the title. */
  description?: ReactNode;
  /** Escape, a click on the backdrop, or the caller's Cancel button. Not called while `busy`. */
  onClose: () => void;
  /** While true, Escape and the backdrop do nothing (the outcome of a save or delete is not known yet). */
  busy?: boolean;
  /** What gets focus when the dialog opens; by default the browser's choice (the first focusable element). */
  initialFocus?: RefObject<HTMLElement | null>;
  children?: ReactNode;
  className?: string;
};

/**
 * The one modal dialog of the kit, a native `<dialog>` opened with showModal(): the page behind is inert, Tab stays
 * inside and Escape is the browser's own cancel, with no UI library. When it closes, focus goes back to what had
 * it before (the button that opened it); when that is gone (its row was deleted), to the heading of the part of the
 * page it was in (focus-return.ts), never <body>. ConfirmDialog is built on it; a form dialog puts its form in
 * `children`.
 */
export function Modal({ open, title, description, onClose, busy = false, initialFocus, children, className }: ModalProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<ReturnType<typeof rememberFocus> | null>(null);
  const titleId = useId();
  const descriptionId = useId();
  // Read inside native event handlers, which are bound once.
  const latest = useRef({ busy, onClose });
  useEffect(() => {
    latest.current = { busy, onClose };
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocus.current = rememberFocus();
      dialog.showModal();
      initialFocus?.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open, initialFocus]);

  // Give focus back on close, and on unmount while open (e.g. the row that owned the dialog was deleted).
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const restore = () => {
      const target = returnFocus.current;
      returnFocus.current = null;
      target?.restore();
    };
    // Escape: the browser fires `cancel`; the parent decides whether to close (it owns `open`).
    const onCancelEvent = (event: Event) => {
      event.preventDefault();
      if (!latest.current.busy) latest.current.onClose();
    };
    dialog.addEventListener('cancel', onCancelEvent);
    dialog.addEventListener('close', restore);
    return () => {
      dialog.removeEventListener('cancel', onCancelEvent);
      dialog.removeEventListener('close', restore);
      if (dialog.open) restore();
    };
  }, []);

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      // A click on the backdrop lands on the <dialog> itself (the panel fills it): treat it as Cancel.
      onClick={(e) => e.target === e.currentTarget && !busy && onClose()}
      className={cn(
        'm-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40',
        'dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100 dark:backdrop:bg-black/60',
        className,
      )}
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-lg font-semibold wrap-anywhere text-zinc-900 dark:text-zinc-50">
            {title}
          </h2>
          {description ? (
            <div id={descriptionId} className="mt-2 text-sm wrap-anywhere text-zinc-600 dark:text-zinc-300">
              {description}
            </div>
          ) : null}
          {children}
        </div>
      ) : null}
    </dialog>
  );
}
