import Link from 'next/link';
import type { ComponentProps } from 'react';
import { buttonVariants, type ButtonVariantProps } from './button-variants';
import { cn } from './cn';

/** Navigation that looks like a Button ("New agent", "Edit"): a real link, so it opens in a new tab and reads as one. */
export type ButtonLinkProps = ComponentProps<typeof Link> & ButtonVariantProps;

export function ButtonLink({ variant, size, className, ...props }: ButtonLinkProps) {
  return <Link className={cn(buttonVariants({ variant, size }), className)} {...props} />;
}
