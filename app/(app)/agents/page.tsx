import type { Metadata } from 'next';
import Link from 'next/link';
import { AgentList } from '@/components/agents/agent-list';
import { linkButtonClass } from '@/components/agents/link-button';
import { PageHeader } from '@/components/ui/misc';

export const metadata: Metadata = { title: 'Agents' };

export default function AgentsPage() {
  return (
    <>
      <PageHeader title="Agents">
        <Link href="/agents/new" className={linkButtonClass('primary')}>
          New agent
        </Link>
      </PageHeader>
      <AgentList />
    </>
  );
}
