'use client';

import { useFormStatus } from 'react-dom';
import { Button } from '@/components/ui/button';
import { signOutAction } from '@/app/actions/auth';

function SubmitButton({ className }: { className?: string }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant="secondary" size="sm" pending={pending} className={className}>
      {pending ? 'Signing out…' : 'Sign out'}
    </Button>
  );
}

/** A form posting to the sign-out server action, so it works before hydration too. */
export function SignOutButton({ className }: { className?: string }) {
  return (
    <form action={signOutAction}>
      <SubmitButton className={className} />
    </form>
  );
}
