import { forwardRef, type InputHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { cn } from './cn';

const base =
  'w-full rounded-md border bg-white px-3 py-2 text-sm text-zinc-900 placeholder:text-zinc-400 ' +
  'focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500 disabled:opacity-60 ' +
  'dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-500';
const border = (invalid?: boolean) =>
  invalid ? 'border-red-500 dark:border-red-400' : 'border-zinc-300 dark:border-zinc-700';

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input(
  { className, ...props },
  ref,
) {
  const invalid = props['aria-invalid'] === true || props['aria-invalid'] === 'true';
  return <input ref={ref} className={cn(base, 'h-10', border(invalid), className)} {...props} />;
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea(
  { className, ...props },
  ref,
) {
  const invalid = props['aria-invalid'] === true || props['aria-invalid'] === 'true';
  return <textarea ref={ref} className={cn(base, border(invalid), className)} {...props} />;
});
