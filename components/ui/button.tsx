import type { ComponentProps } from 'react';
import { buttonVariants, type ButtonVariantProps } from './button-variants';
import { cn } from './cn';

/** `ref` is an ordinary prop (React 19). `type` defaults to "button" so a button in a form never submits by accident. */
export type ButtonProps = ComponentProps<'button'> &
  ButtonVariantProps & {
    /**
     * The button's action is under way: it reads as unavailable (aria-disabled, the disabled look) and ignores
     * clicks, Enter and Space, but stays focusable. Prefer it to `disabled` for a button the person just pressed:
     * a focused button that becomes disabled loses focus to <body>, and a keyboard or screen-reader user their place.
     */
    pending?: boolean;
  };

export function Button({ variant, size, className, type = 'button', pending = false, onClick, ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={cn(buttonVariants({ variant, size }), className)}
      {...props}
      aria-disabled={pending ? true : props['aria-disabled']}
      // preventDefault also stops a submit button's form submission.
      onClick={pending ? (event) => event.preventDefault() : onClick}
    />
  );
}

export { buttonVariants };
