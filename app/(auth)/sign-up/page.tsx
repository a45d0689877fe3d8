import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { Alert } from '@/components/ui/misc';
import { AUTH_MESSAGES } from '@/lib/schemas/auth';
import { currentUser } from '@/server/auth/require-user';
import { signUpEnabled } from '@/server/auth/users';

export const metadata: Metadata = { title: 'Create account' };
export const dynamic = 'force-dynamic';

export default async function SignUpPage() {
  if (await currentUser()) redirect('/agents');
  if (!signUpEnabled()) {
    return (
      <div className="space-y-4">
        <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
        <Alert tone="info">{AUTH_MESSAGES.signUpDisabled}</Alert>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Already have an account?{' '}
          <Link href="/sign-in" className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Sign in
          </Link>
        </p>
      </div>
    );
  }
  return <SignUpForm />;
}
