import type { Metadata } from 'next';
import { ButtonLink } from '@/components/ui/button-link';
import { AgentList } from '@/components/agents/agent-list';
import { PageHeader } from '@/components/ui/misc';

export const metadata: Metadata = { title: 'Agents' };

export default function AgentsPage() {
  return (
    <>
      <PageHeader title="Agents">
        <ButtonLink href="/batches" variant="secondary">
          Batches
        </ButtonLink>
        <ButtonLink href="/agents/new">New agent</ButtonLink>
      </PageHeader>
      <AgentList />
    </>
  );
}
