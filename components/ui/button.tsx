import type { ComponentProps } from 'react';
import { buttonVariants, type ButtonVariantProps } from './button-variants';
import { cn } from './cn';

/** `ref` is an ordinary prop (React 19). `type` defaults to "button" so a button in a form never submits by accident. */
export type ButtonProps = ComponentProps<'button'> & ButtonVariantProps;

export function Button({ variant, size, className, type = 'button', ...props }: ButtonProps) {
  return <button type={type} className={cn(buttonVariants({ variant, size }), className)} {...props} />;
}

export { buttonVariants };
