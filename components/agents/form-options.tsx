'use client';

import { useId, type ReactNode, type Ref } from 'react';
import { cn } from '@/components/ui/cn';

/** The agent form's option controls: a fieldset of checkboxes or radios with its hint and error, and one option. */

export function CheckboxFieldset({ legend, hint, error, children }: { legend: string; hint: string; error?: string; children: ReactNode }) {
  const id = useId();
  return (
    <fieldset aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`} className="min-w-0 space-y-2">
      <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">{legend}</legend>
      <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
        {hint}
      </p>
      {children}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

type CheckboxOptionProps = {
  label: ReactNode;
  description?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  onBlur: () => void;
  ref?: Ref<HTMLInputElement>;
};

export function CheckboxOption({ label, description, checked, onChange, onBlur, ref }: CheckboxOptionProps) {
  const id = useId();
  return (
    <div
      className={cn(
        'flex min-w-0 items-start gap-2 rounded-md',
        description && 'border border-zinc-200 p-3 dark:border-zinc-800',
        description && checked && 'border-indigo-400 bg-indigo-50/50 dark:border-indigo-500 dark:bg-indigo-950/40',
      )}
    >
      <input
        ref={ref}
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        onBlur={onBlur}
        aria-describedby={description ? `${id}-desc` : undefined}
        className="mt-0.5 size-4 shrink-0 accent-indigo-600 dark:accent-indigo-400"
      />
      <div className="min-w-0">
        <label htmlFor={id} className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
          {label}
        </label>
        {description ? (
          <p id={`${id}-desc`} className="text-xs text-zinc-500 dark:text-zinc-400">
            {description}
          </p>
        ) : null}
      </div>
    </div>
  );
}

type RadioOptionProps = { name: string; label: string; checked: boolean; onSelect: () => void; onBlur: () => void; ref?: Ref<HTMLInputElement>; disabled?: boolean };

export function RadioOption({ name, label, checked, onSelect, onBlur, ref, disabled }: RadioOptionProps) {
  const id = useId();
  return (
    <div className="flex items-center gap-2">
      <input
        ref={ref}
        id={id}
        type="radio"
        name={name}
        checked={checked}
        onChange={(e) => e.target.checked && onSelect()}
        onBlur={onBlur}
        disabled={disabled}
        className="size-4 shrink-0 accent-indigo-600 dark:accent-indigo-400"
      />
      <label htmlFor={id} className="text-sm text-zinc-800 dark:text-zinc-200">
        {label}
      </label>
    </div>
  );
}
