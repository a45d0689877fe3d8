import { useId, type ReactElement, type ReactNode } from 'react';
import { cloneElement } from 'react';

type FieldProps = {
  label: ReactNode;
  /** The error shown next to the field; also marks the control invalid for assistive tech. */
  error?: string;
  hint?: ReactNode;
  /** A single input-like element; it receives id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
};

/** Label + control + hint + error, wired together for screen readers. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        {label}
      </label>
      {cloneElement(children, { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <div id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </div>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
