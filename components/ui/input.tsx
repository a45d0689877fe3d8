import type { ComponentProps } from 'react';
import { cn } from './cn';

const base =
  'w-full rounded-md border bg-white px-3 py-2 text-sm text-zinc-900 placeholder:text-zinc-500 ' +
  'focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500 disabled:opacity-60 ' +
  'dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400';
const border = (invalid?: boolean) =>
  invalid ? 'border-red-500 dark:border-red-400' : 'border-zinc-300 dark:border-zinc-700';
const isInvalid = (value: ComponentProps<'input'>['aria-invalid']) => value === true || value === 'true';

/** `ref` is an ordinary prop (React 19); aria-invalid (set by Field) turns the border red. */
export function Input({ className, ...props }: ComponentProps<'input'>) {
  return <input className={cn(base, 'h-10', border(isInvalid(props['aria-invalid'])), className)} {...props} />;
}

/** A native select styled as Input, so a form's pickers and text fields line up. */
export function Select({ className, ...props }: ComponentProps<'select'>) {
  return <select className={cn(base, 'h-10 min-w-0 py-0', border(isInvalid(props['aria-invalid'])), className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  return <textarea className={cn(base, border(isInvalid(props['aria-invalid'])), className)} {...props} />;
}
