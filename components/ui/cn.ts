import { clsx, type ClassValue } from 'clsx';
import { twMerge } from 'tailwind-merge';

/**
 * Join class names (clsx: strings, arrays, `{ class: condition }`, falsy skipped) and let a later Tailwind class
 * win over an earlier one of the same group (tailwind-merge), so `cn(base, className)` lets a caller override
 * `px-4` with `px-2` instead of shipping both and leaving the winner to stylesheet order.
 */
export function cn(...parts: ClassValue[]): string {
  return twMerge(clsx(parts));
}
