import Link from 'next/link';
import { textLink } from '@/components/ui/button-variants';

const SWITCH = {
  'sign-in': { question: 'Already have an account?', label: 'Sign in' },
  'sign-up': { question: 'New here?', label: 'Create account' },
} as const;

/**
 * The line under an account page that leads to the other one: the sign-in form, the sign-up form and the "sign-up is
 * closed" page say it the same way.
 */
export function AuthSwitchLink({ to }: { to: keyof typeof SWITCH }) {
  const { question, label } = SWITCH[to];
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400">
      {question}{' '}
      <Link href={`/${to}`} className={textLink}>
        {label}
      </Link>
    </p>
  );
}
