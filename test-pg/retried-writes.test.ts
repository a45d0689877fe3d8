import crypto from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { suspendActiveRuns } from '@/server/agents/suspend';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { afterCommit, getDb, openDatabase, schema, writeTx } from '@/server/db';
import { currentTx } from '@/server/db/tx-scope';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// ADR 033 §3: on Postgres a write transaction's body runs again when Postgres reports a conflict, so every body must
// be safe to run twice. ENSEMBLE_INJECT_SERIALIZATION_FAILURES=1 (server/db/injected-conflicts.ts) fails the first
// attempt of every write transaction after its body ran; `npm run test:pg:conflicts` runs every Postgres suite so.
// What must not happen: an effect outside the database taken at an attempt that rolled back (here: a team lease
// claimed inside the admission's transaction), or a retried body's work committed twice.

const injected = process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES;
beforeEach(() => {
  process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES = '1';
});
afterEach(() => {
  if (injected === undefined) delete process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES;
  else process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES = injected;
});

const clusters: SharedCluster[] = [];
const runtimes: SchedulerRuntime[] = [];
beforeAll(async () => {
  await openDatabase();
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.drain()));
  await suspendActiveRuns();
  await Promise.all(clusters.map((c) => c.stop()));
});

describe('the injected serialization failure', () => {
  it('runs the body twice, commits it once, and calls afterCommit once', async () => {
    const owner = await makeUser('twice');
    let attempts = 0;
    let committed = 0;
    const name = `renamed ${crypto.randomUUID()}`;
    await writeTx(async (tx) => {
      attempts += 1;
      await tx.update(schema.users).set({ name }).where(inArray(schema.users.id, [owner.id]));
      afterCommit(() => (committed += 1));
    });
    expect(attempts).toBe(2);
    expect(committed).toBe(1);
    expect((await getDb().select().from(schema.users).where(inArray(schema.users.id, [owner.id])))[0]!.name).toBe(name);
  });
});

describe('admission under retried transactions', () => {
  it("claims a team's lease only after the admission committed, once per admitted job", async () => {
    const owner = await makeUser('admit');
    const { team } = await makeTeam(owner.id);
    const cluster = new SharedCluster({
      url: process.env.DATABASE_URL!,
      identity: { id: `retry-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
      heartbeatMs: 200,
      onFenced: (reason) => {
        throw new Error(`fenced: ${reason}`);
      },
    });
    clusters.push(cluster);
    const claims: { teamId: string; inTransaction: boolean }[] = [];
    const claim = cluster.claim.bind(cluster);
    cluster.claim = (teamId) => {
      claims.push({ teamId, inTransaction: currentTx() !== undefined });
      return claim(teamId);
    };
    await cluster.start();
    const runtime = new SchedulerRuntime(teamJobs, { tickMs: 50, maxActive: 3, cluster });
    runtimes.push(runtime);

    const jobIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { jobs } = await sendRequest(owner.id, team.id, { memberIds: [team.members[i % 2]!.id], text: `/reply done ${i}`, draftKey: `${team.id}-${i}` });
      jobIds.push(jobs[0]!.id);
    }
    runtime.start();
    const finished = await until(
      async () => {
        const rows = await getDb().select().from(schema.jobs).where(inArray(schema.jobs.id, jobIds));
        return rows.every((j) => j.status === 'completed') && rows;
      },
      30_000,
      'every job completed',
    );
    // Each job ran once: one run per job, the one it recorded.
    const runs = await getDb().select().from(schema.runs).where(inArray(schema.runs.conversationId, finished.map((j) => j.conversationId)));
    expect(runs.map((r) => r.id).sort()).toEqual(finished.map((j) => j.runId!).sort());
    expect(runtime.stats.admissions).toBe(3);
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.filter((c) => c.inTransaction)).toEqual([]);
    expect(claims.every((c) => c.teamId === team.id)).toBe(true);
  }, 60_000);
});
