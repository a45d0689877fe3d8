import { afterEach, describe, expect, it, vi } from 'vitest';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { databaseEngine } from '@/server/db/engine';
import { statement } from '@/server/db/statement';
import { sendRequest } from '@/server/teams/requests';
import { withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

/*
 * A job's path — the request, its admission, its run and the run's assembly record, its completion — runs only
 * statements built once per connection (server/db/prepared.ts) or written by hand (server/db/statement.ts). A drizzle
 * builder query builds its SQL at every call, which on this path cost more than the query (docs/performance.md,
 * round 9). What must not happen: a query on the path built again for every job.
 * SQLite only: on Postgres each of the pool's connections prepares its own statements (server/db/pg-engine.ts keeps
 * one drizzle object per client), so whether a job builds anything depends on which connections it happens to get.
 */
withScheduler();
afterEach(() => vi.restoreAllMocks());

// Polled by hand-written SQL, so the test's own reads build nothing either.
const jobStatus = statement('select status from jobs where id = ?');
const finished = (id: string) =>
  until(async () => ['completed', 'failed'].includes((await jobStatus.get<{ status: string }>(id))?.status ?? ''), 10_000, `job ${id}`);

/** Every SQL text drizzle builds while `work` runs. */
async function builtDuring(work: () => Promise<void>): Promise<string[]> {
  const built: string[] = [];
  const original = SQLiteSyncDialect.prototype.sqlToQuery;
  vi.spyOn(SQLiteSyncDialect.prototype, 'sqlToQuery').mockImplementation(function (this: unknown, ...args: Parameters<typeof original>) {
    const query = original.apply(this, args);
    built.push(query.sql);
    return query;
  });
  await work();
  vi.restoreAllMocks();
  return built;
}

describe("a job's hot path", () => {
  it.runIf(databaseEngine() === 'sqlite')('builds no SQL once its statements are prepared: a request, its admission, run, assembly record and completion', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const [first, second] = team.members;
    // The first job prepares the connection's statements.
    const warm = (await sendRequest(alice.id, team.id, { memberIds: [first!.id], text: 'warm up', draftKey: 'warm' })).jobs[0]!;
    await finished(warm.id);

    const built = await builtDuring(async () => {
      const job = (await sendRequest(alice.id, team.id, { memberIds: [second!.id], text: 'the measured one', draftKey: 'measured' })).jobs[0]!;
      await finished(job.id);
      expect((await jobStatus.get<{ status: string }>(job.id))?.status).toBe('completed');
    });

    expect(built).toEqual([]);
  });
});
