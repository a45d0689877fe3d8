import { cva, type VariantProps } from 'class-variance-authority';

/**
 * The one look of every button, of every link styled as a button (ButtonLink), and of text links (`link`), so
 * "New agent" (a link) and "Save" (a button) can't drift apart. Colours are chosen for ≥ 4.5:1 text contrast in light
 * and dark. The box (height, padding, rounded corners) comes with a size: `inline` has none, so a `link` flows and
 * wraps with the text around it.
 */
export const buttonVariants = cva(
  [
    'font-medium transition-colors',
    'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500',
    'disabled:cursor-not-allowed disabled:opacity-60 aria-disabled:cursor-not-allowed aria-disabled:opacity-60',
  ],
  {
    variants: {
      variant: {
        primary: 'bg-indigo-600 text-white hover:bg-indigo-700 dark:bg-indigo-600 dark:hover:bg-indigo-500',
        secondary:
          'border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
        danger: 'bg-red-600 text-white hover:bg-red-700 dark:bg-red-700 dark:hover:bg-red-600',
        ghost: 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-200 dark:hover:bg-zinc-800',
        link: 'text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300',
      },
      size: {
        sm: 'inline-flex h-8 shrink-0 items-center justify-center gap-1.5 rounded-md px-2.5 text-sm',
        md: 'inline-flex h-10 shrink-0 items-center justify-center gap-1.5 rounded-md px-4 text-sm',
        inline: '',
      },
    },
    defaultVariants: { variant: 'primary', size: 'md' },
  },
);

export type ButtonVariantProps = VariantProps<typeof buttonVariants>;

/** A text link's classes, for an <a> or <button> that is not a ButtonLink (an in-page anchor, a show-more toggle). */
export const textLink = buttonVariants({ variant: 'link', size: 'inline' });
