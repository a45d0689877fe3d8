import type { Metadata } from 'next';
import { EditAgent } from '@/components/agents/edit-agent';
import { PageHeader } from '@/components/ui/misc';

export const metadata: Metadata = { title: 'Edit agent' };

export default async function EditAgentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <PageHeader title="Edit agent" />
      <EditAgent id={id} />
    </>
  );
}
