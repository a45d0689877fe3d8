import { eq } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { delegationPort } from '@/server/agents/delegation/port';
import { batchPort } from '@/server/batches/port';
import { getDb, schema } from '@/server/db';
import { startScheduler, stopScheduler, type RuntimeOptions } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { until } from '../support/wait';

/** The process's scheduler with batches (and delegation) wired in as start-up does, for the whole test file. */
export function withBatchScheduler(options: RuntimeOptions = {}): void {
  beforeAll(() => {
    startScheduler(teamJobs, { tickMs: 50, ...options, delegations: delegationPort, batches: batchPort });
  });
  afterAll(async () => {
    await stopScheduler();
  });
}

export const batchRow = async (id: string) => (await getDb().select().from(schema.batches).where(eq(schema.batches.id, id)))[0]!;
export const itemRows = async (batchId: string) =>
  getDb().select().from(schema.batchItems).where(eq(schema.batchItems.batchId, batchId)).orderBy(schema.batchItems.idx);

/** Wait (bounded) until the batch has ended, and return it. */
export const ended = (id: string, timeoutMs = 15_000) =>
  until(
    async () => {
      const row = await batchRow(id);
      return (row.status === 'completed' || row.status === 'cancelled') && row;
    },
    timeoutMs,
    `batch ${id} to end`,
  );
