import { afterAll, beforeAll } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { startScheduler, stopScheduler, type RuntimeOptions } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { until } from './wait';

/** Run the process's scheduler for the whole test file. */
export function withScheduler(options: RuntimeOptions = { tickMs: 50 }): void {
  beforeAll(() => {
    startScheduler(teamJobs, options);
  });
  afterAll(async () => {
    await stopScheduler();
  });
}

/** A job row as stored now (committed). */
export const job = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;

/** Wait (bounded) until a job is finished or waiting for the person, and return it. */
export const settled = (id: string) =>
  until(
    async () => {
      const row = await job(id);
      return ['completed', 'failed', 'cancelled', 'waiting_input'].includes(row.status) && row;
    },
    10_000,
    `job ${id}`,
  );
