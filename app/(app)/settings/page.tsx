import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { signOutEverywhereAction } from '@/app/actions/auth';
import { ApiTokens } from '@/components/settings/api-tokens';
import { ChangePasswordForm } from '@/components/settings/change-password-form';
import { SignOutEverywhere } from '@/components/settings/sign-out-everywhere';
import { PageHeader } from '@/components/ui/misc';
import { currentUser } from '@/server/auth/require-user';
import { changePasswordAction } from './actions';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { password } = await searchParams;
  const user = await currentUser();
  if (!user) redirect('/sign-in?callbackUrl=%2Fsettings');
  return (
    <div className="mx-auto w-full max-w-3xl space-y-10">
      <PageHeader title="Settings" />
      <section aria-labelledby="account-heading" className="space-y-2">
        <h2 id="account-heading" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
          Account
        </h2>
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
          <dt className="text-zinc-500 dark:text-zinc-400">Email</dt>
          <dd className="break-words text-zinc-900 dark:text-zinc-100">{user.email}</dd>
          <dt className="text-zinc-500 dark:text-zinc-400">Name</dt>
          <dd className="break-words text-zinc-900 dark:text-zinc-100">{user.name || '—'}</dd>
        </dl>
      </section>
      <ChangePasswordForm action={changePasswordAction} changed={password === 'changed'} />
      <ApiTokens />
      <SignOutEverywhere action={signOutEverywhereAction} />
    </div>
  );
}
