import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { AUTH_MESSAGES, safeCallbackPath } from '@/lib/schemas/auth';
import { currentUser } from '@/server/auth/require-user';
import { signUpEnabled } from '@/server/auth/users';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  // `callbackUrl` is what the app sends; `from` is accepted too. Only same-origin paths survive.
  const callbackPath = safeCallbackPath(first(params.callbackUrl) ?? first(params.from));
  if (await currentUser()) redirect(callbackPath ?? '/agents');

  // next-auth's own HTTP flow lands here with ?error=CredentialsSignin&code=… after a failed POST.
  const code = first(params.code);
  const initialMessage =
    first(params.error) === 'CredentialsSignin'
      ? code === 'rate_limited'
        ? 'Too many failed sign-ins. Try again in a minute.'
        : AUTH_MESSAGES.invalidCredentials
      : undefined;

  return <SignInForm callbackPath={callbackPath} initialMessage={initialMessage} signUpLink={await signUpEnabled()} />;
}
