import Link from 'next/link';
import type { ReactNode } from 'react';
import { textLink } from '@/components/ui/button-variants';

/** Sign-in and sign-up: one centered card under the product's name, no app navigation. */
export function AuthCard({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-10">
      <Link
        href="/"
        className="mb-6 rounded text-xl font-semibold tracking-tight text-zinc-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:text-zinc-50"
      >
        Ensemble
      </Link>
      <div className="w-full max-w-sm rounded-lg border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        {children}
      </div>
    </main>
  );
}

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
