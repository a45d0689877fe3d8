import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { AccountList } from '@/components/admin/account-list';
import { CreateAccountForm } from '@/components/admin/create-account-form';
import { Invitations } from '@/components/admin/invitations';
import { PageHeader } from '@/components/ui/misc';
import { PageSection } from '@/components/ui/page-section';
import { isAdmin } from '@/server/admin/access';
import { listAccounts } from '@/server/admin/accounts';
import { listInvitations } from '@/server/auth/invitations';
import { currentUser } from '@/server/auth/require-user';
import { signUpAllowedByEnv } from '@/server/auth/users';
import { AddProviderForm } from '@/components/admin/add-provider-form';
import { ProviderList } from '@/components/admin/provider-list';
import { ModelPrices } from '@/components/admin/model-prices';
import { McpServerForm } from '@/components/mcp/mcp-server-form';
import { McpServerList } from '@/components/mcp/mcp-server-list';
import { adminMcpServers } from '@/server/mcp/servers';
import { listPrices } from '@/server/providers/prices';
import { builtinProviders } from '@/server/providers/builtins';
import { listProviders } from '@/server/providers/store';

export const metadata: Metadata = { title: 'Admin' };
export const dynamic = 'force-dynamic';

/** The instance's accounts (create, disable, usage) and invitation links. Anyone but an admin gets a 404. */
export default async function AdminPage() {
  const user = await currentUser();
  if (!user) redirect('/sign-in?callbackUrl=%2Fadmin');
  if (!(await isAdmin(user.id))) notFound();
  const accounts = await listAccounts();
  const invitations = await listInvitations();
  const providers = await listProviders();
  const prices = await listPrices();
  const mcpServers = await adminMcpServers();
  // Suggestions for the price form: the embedded model and every managed provider's cached models, as agents name them.
  const priceModels = ['scripted', ...providers.flatMap((p) => p.models.map((m) => `${p.slug}:${m}`))];
  return (
    <div className="mx-auto w-full max-w-4xl space-y-10">
      <PageHeader title="Admin" />
      <PageSection
        id="accounts"
        title="Accounts"
        description={
          <>
            {signUpAllowedByEnv()
              ? 'Anyone can sign up (ALLOW_SIGNUP=true). '
              : 'Sign-up is closed: people join through an account you create or an invitation link. '}
            Disabling an account signs it out everywhere and stops its API tokens at once.
          </>
        }
      >
        <CreateAccountForm />
        <AccountList accounts={accounts} currentUserId={user.id} />
      </PageSection>
      <PageSection
        id="invitations"
        title="Invitations"
        description="An invitation link lets one person create their own account. It works once and expires."
      >
        <Invitations invitations={invitations} />
      </PageSection>
      <PageSection
        id="providers"
        title="Providers"
        description="Model providers for every agent on this instance. An agent names one in its model as slug:model. Keys are stored encrypted and never shown again."
      >
        <AddProviderForm />
        <ProviderList providers={providers} builtin={builtinProviders()} />
      </PageSection>
      <PageSection
        id="mcp-servers"
        title="MCP servers"
        description="MCP servers every account's agents may use: a command this server runs (stdio, in its own directory under the data directory) or a Streamable HTTP URL. Env and header values are stored encrypted and never shown again."
      >
        <McpServerForm scope="admin" />
        <McpServerList scope="admin" servers={mcpServers} />
      </PageSection>
      <PageSection
        id="prices"
        title="Model prices"
        description="What a model costs per million input and output tokens, in US dollars. Runs, teams and usage show cost beside tokens; a team can have a budget in money. A run is priced when it finishes, so a change doesn’t rewrite past costs."
      >
        <ModelPrices prices={prices} models={priceModels} />
      </PageSection>
    </div>
  );
}
