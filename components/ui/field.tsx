import { useId, type ReactElement, type ReactNode } from 'react';
import { cloneElement } from 'react';
import { cn } from './cn';

type FieldProps = {
  label: ReactNode;
  /** The error shown next to the field; also marks the control invalid for assistive tech. */
  error?: string;
  hint?: ReactNode;
  /** 'above' (forms), 'beside' (a compact control in a toolbar), or 'hidden': read by screen readers only. */
  labelPlacement?: 'above' | 'beside' | 'hidden';
  className?: string;
  /**
   * A single input-like element; it receives id, aria-invalid and aria-describedby. Its own aria-describedby (a
   * message outside the field) and aria-invalid (a check the field is not told of) are kept.
   */
  children: ReactElement<Record<string, unknown>>;
};

const labelClass = {
  above: 'block text-sm font-medium text-zinc-800 dark:text-zinc-200',
  beside: 'text-sm text-zinc-700 dark:text-zinc-300',
  hidden: 'sr-only',
} as const;

/** Label + control + hint + error, wired together for screen readers. */
export function Field({ label, error, hint, labelPlacement = 'above', className, children }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const own = children.props;
  const describedBy = [own['aria-describedby'], hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cn(labelPlacement === 'beside' ? 'flex items-center gap-2' : 'space-y-1', className)}>
      <label htmlFor={id} className={labelClass[labelPlacement]}>
        {label}
      </label>
      {cloneElement(children, { id, 'aria-invalid': error ? true : own['aria-invalid'], 'aria-describedby': describedBy })}
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
