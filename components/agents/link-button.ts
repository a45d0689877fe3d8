import { cn } from '@/components/ui/cn';

// Links that look like components/ui Button (same palette), for navigation actions such as "New agent" and "Edit".
const variants = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-500 dark:bg-indigo-500 dark:hover:bg-indigo-400',
  secondary:
    'border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
} as const;
const sizes = { sm: 'h-8 px-2.5 text-sm', md: 'h-10 px-4 text-sm' } as const;

export function linkButtonClass(variant: keyof typeof variants = 'primary', size: keyof typeof sizes = 'md'): string {
  return cn(
    'inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md font-medium transition-colors',
    'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500',
    variants[variant],
    sizes[size],
  );
}
