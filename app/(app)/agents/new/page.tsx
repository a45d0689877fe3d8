import type { Metadata } from 'next';
import { AgentForm } from '@/components/agents/agent-form';
import { PageHeader } from '@/components/ui/misc';
import { env } from '@/server/env';

export const metadata: Metadata = { title: 'New agent' };

export default function NewAgentPage() {
  return (
    <>
      <PageHeader title="New agent" />
      <AgentForm mode="create" tools={{ webSearch: env.webSearch !== undefined }} />
    </>
  );
}
