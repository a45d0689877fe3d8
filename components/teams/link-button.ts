import { buttonVariants } from '@/components/ui/button-variants';

/**
 * Classes for a Link in the team screens: the button looks come from the kit (the same cva variants as Button and
 * ButtonLink, so the three can't drift apart); `text` is the inline text-link style.
 */
export const linkButton = {
  primary: buttonVariants({ variant: 'primary', size: 'md' }),
  secondary: buttonVariants({ variant: 'secondary', size: 'sm' }),
  text: 'font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:text-indigo-300',
};
