import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { BatchStartForm } from '@/components/batches/batch-start-form';
import { BatchTargetPicker } from '@/components/batches/batch-target-picker';
import { PageHeader } from '@/components/ui/misc';
import type { BatchTarget } from '@/lib/types/batch';
import { currentUser } from '@/server/auth/require-user';
import { findAgent } from '@/server/agents/catalog';
import { batchTargetChoices } from '@/server/batches/targets';
import { AppError } from '@/server/http/errors';
import { getTeam } from '@/server/teams/teams';

export const metadata: Metadata = { title: 'Run over a list' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : null);

const hasTarget = (query: Awaited<Props['searchParams']>) => query.agentId !== undefined || query.teamId !== undefined || query.memberId !== undefined;

/**
 * Who the batch runs with, from the link that opened the page (?agentId=… from an agent, ?teamId=…&memberId=… from a
 * team member), checked for this owner: a missing or someone else's agent, team or member answers 404.
 */
async function targetOf(ownerId: string, query: Awaited<Props['searchParams']>): Promise<BatchTarget | null> {
  const agentId = one(query.agentId);
  if (agentId) {
    const agent = await findAgent(ownerId, agentId);
    return agent ? { kind: 'agent', agentId: agent.id, name: agent.name } : null;
  }
  const teamId = one(query.teamId);
  const memberId = one(query.memberId);
  if (!teamId || !memberId) return null;
  try {
    const member = (await getTeam(ownerId, teamId)).members.find((m) => m.id === memberId);
    return member ? { kind: 'member', teamId, memberId, name: member.name } : null;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}

export default async function NewBatchPage({ searchParams }: Props) {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  const query = await searchParams;
  // No target named (the Batches page's link, or the address typed): choose one here.
  if (!hasTarget(query)) {
    return (
      <>
        <PageHeader title="Run over a list" />
        <BatchTargetPicker choices={await batchTargetChoices(user.id)} />
      </>
    );
  }
  const target = await targetOf(user.id, query);
  if (!target) notFound();
  return (
    <>
      <PageHeader title={<>Run over a list with {target.name}</>} />
      <BatchStartForm target={target} />
    </>
  );
}
