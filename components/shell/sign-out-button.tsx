'use client';

import { useFormStatus } from 'react-dom';
import { Button } from '@/components/ui/button';

export type SignOutAction = (formData: FormData) => void | Promise<void>;

function SubmitButton({ className }: { className?: string }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant="secondary" size="sm" pending={pending} className={className}>
      {pending ? 'Signing out…' : 'Sign out'}
    </Button>
  );
}

/** A form posting to the sign-out server action, so it works before hydration too. */
export function SignOutButton({ action, className }: { action: SignOutAction; className?: string }) {
  return (
    <form action={action}>
      <SubmitButton className={className} />
    </form>
  );
}
