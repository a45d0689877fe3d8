import { eq } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { delegationPort } from '@/server/agents/delegation/port';
import { getDb, schema } from '@/server/db';
import type { Delegation, Run } from '@/server/db/schema';
import { startScheduler, stopScheduler, type RuntimeOptions } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';

/** The process's scheduler with delegation wired in (as start-up does), for the whole test file. */
export function withDelegationScheduler(options: RuntimeOptions = {}): void {
  beforeAll(() => {
    startScheduler(teamJobs, { tickMs: 50, ...options, delegations: delegationPort });
  });
  afterAll(async () => {
    await stopScheduler();
  });
}

export const delegationsOf = async (parentRunId: string): Promise<Delegation[]> =>
  getDb().select().from(schema.delegations).where(eq(schema.delegations.parentRunId, parentRunId)).orderBy(schema.delegations.seq);

export const runRow = async (id: string): Promise<Run> => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;

/** A `/call task {...}` directive line. */
export const taskCall = (args: Record<string, unknown>) => `/call task ${JSON.stringify(args)}`;
