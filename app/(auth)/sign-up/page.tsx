import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { AuthSwitchLink } from '@/components/auth/auth-switch-link';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { Alert } from '@/components/ui/misc';
import { AUTH_MESSAGES } from '@/lib/schemas/auth';
import { signUpAccess } from '@/server/auth/registration';
import { currentUser } from '@/server/auth/require-user';
import { hasAnyUser } from '@/server/auth/users';

export const metadata: Metadata = { title: 'Create account' };
export const dynamic = 'force-dynamic';

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const SPENT_LINK_BUT_OPEN =
  'This invitation link is not valid any more (it was used, revoked or has expired), but sign-up is open on this server: you can create an account anyway.';

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The form when sign-up is open to this visitor: before the first account (it becomes the admin), with
 * ALLOW_SIGNUP=true, or through an invitation link (/sign-up?invite=CODE). Otherwise it says plainly that sign-up
 * is closed and how to get in. The action decides again; this page only avoids showing a form that can't work.
 */
export default async function SignUpPage({ searchParams }: { searchParams: SearchParams }) {
  if (await currentUser()) redirect('/agents');
  const invite = first((await searchParams).invite)?.trim() || null;
  const access = await signUpAccess(invite);
  // A spent link while sign-up is open anyway: say so, and offer the ordinary form.
  if (access === 'closed' && invite && (await signUpAccess(null)) === 'open') {
    return <SignUpForm notice={SPENT_LINK_BUT_OPEN} />;
  }
  if (access === 'closed') {
    return (
      <div className="space-y-4">
        <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
        <Alert tone="info">{invite ? AUTH_MESSAGES.invitationInvalid : AUTH_MESSAGES.signUpDisabled}</Alert>
        <AuthSwitchLink to="sign-in" />
      </div>
    );
  }
  const notice =
    access === 'invited'
      ? 'You were invited to this server. The link works once: it is used up when you create your account.'
      : (await hasAnyUser())
        ? undefined
        : 'This server has no accounts yet: the first one becomes its admin.';
  return <SignUpForm invite={access === 'invited' ? invite : null} notice={notice} />;
}
