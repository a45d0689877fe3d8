import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { EditAgent } from '@/components/agents/edit-agent';
import { PageHeader } from '@/components/ui/misc';
import { currentUser } from '@/server/auth/require-user';
import { findAgent } from '@/server/agents/catalog';
import { env } from '@/server/env';

export const metadata: Metadata = { title: 'Edit agent' };

// The form loads the agent through the API; the page checks it exists for this owner first, so a missing or someone
// else's agent answers 404 like every other page.
export default async function EditAgentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  if (!(await findAgent(user.id, id))) notFound();
  return (
    <>
      <PageHeader title="Edit agent" />
      <EditAgent id={id} tools={{ webSearch: env.webSearch !== undefined }} />
    </>
  );
}
