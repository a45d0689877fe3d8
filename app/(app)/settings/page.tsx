import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { ApiTokens } from '@/components/settings/api-tokens';
import { McpServerForm } from '@/components/mcp/mcp-server-form';
import { McpServerList } from '@/components/mcp/mcp-server-list';
import { ChangePasswordForm } from '@/components/settings/change-password-form';
import { SignOutEverywhere } from '@/components/settings/sign-out-everywhere';
import { PageHeader } from '@/components/ui/misc';
import { PageSection } from '@/components/ui/page-section';
import { currentUser } from '@/server/auth/require-user';
import { accountMcpServers } from '@/server/mcp/servers';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { password } = await searchParams;
  const user = await currentUser();
  if (!user) redirect('/sign-in?callbackUrl=%2Fsettings');
  const mcp = await accountMcpServers(user.id);
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
      <ChangePasswordForm changed={password === 'changed'} />
      <ApiTokens />
      <PageSection
        id="mcp-servers"
        title="MCP servers"
        description="Servers whose tools your agents can use, reached over Streamable HTTP. Header values are stored encrypted and never shown again. Servers on private or local addresses are refused unless this deployment allows them."
      >
        <McpServerForm scope="account" />
        <McpServerList scope="account" servers={mcp.servers} deploymentWide={mcp.deploymentWide} />
      </PageSection>
      <SignOutEverywhere />
    </div>
  );
}
