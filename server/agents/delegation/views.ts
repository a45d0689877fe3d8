import 'server-only';
import { asc, eq } from 'drizzle-orm';
import type { DelegationResult, DelegationView } from '@/lib/types/delegation';
import { getDb, schema } from '@/server/db';
import { get } from '../runs';
import type { DelegationSpec } from './spec';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The children a run delegated, in the order it asked for them (refused calls included, with their error), for the
 * owner only: another owner's run is a 404 exactly like a missing one.
 */
export async function runChildren(ownerId: string, runId: string): Promise<DelegationView[]> {
  const run = await get(ownerId, runId);
  const rows = await getDb()
    .select({ d: schema.delegations, agentName: schema.agents.name })
    .from(schema.delegations)
    .leftJoin(schema.agents, eq(schema.agents.id, schema.delegations.agentId))
    .where(eq(schema.delegations.parentRunId, run.id))
    .orderBy(asc(schema.delegations.seq));
  return rows.map(({ d, agentName }) => ({
    id: d.id,
    parentRunId: d.parentRunId,
    parentToolCallId: d.parentToolCallId,
    agentId: d.agentId,
    agentName: agentName ?? null,
    provider: d.provider,
    description: descriptionOf(d.spec),
    depth: d.depth,
    status: d.status,
    childRunId: d.childRunId,
    result: (d.result as DelegationResult | null) ?? null,
    error: d.error,
    createdAt: d.createdAt.toISOString(),
    finishedAt: iso(d.finishedAt),
  }));
}

function descriptionOf(spec: unknown): string {
  const request = (spec as Partial<DelegationSpec> | null)?.request;
  return typeof request?.description === 'string' ? request.description : '';
}
