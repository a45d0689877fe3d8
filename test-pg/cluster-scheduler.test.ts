import crypto from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suspendActiveRuns } from '@/server/agents/suspend';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { getDb, openDatabase, schema } from '@/server/db';
import type { Job } from '@/server/db/schema';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// Two schedulers, each with the cluster of a process of its own, over one Postgres database (ADR 033 §4–5): they
// plan one at a time over a shared round, and each team's steps run where its lease is. What must never happen:
// more jobs holding a slot than the slots there are (counted from the jobs' own admitted/completed times), a job
// run twice, a job left unfinished, or one team's steps split over both schedulers.

const MAX_ACTIVE = 3;
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

function schedulerOf(name: string): { cluster: SharedCluster; runtime: SchedulerRuntime } {
  const cluster = new SharedCluster({
    url: process.env.DATABASE_URL!,
    identity: { id: `${name}-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    heartbeatMs: 200,
    onFenced: (reason) => {
      throw new Error(`${name} fenced: ${reason}`);
    },
  });
  const runtime = new SchedulerRuntime(teamJobs, { tickMs: 50, maxActive: MAX_ACTIVE, cluster });
  clusters.push(cluster);
  runtimes.push(runtime);
  return { cluster, runtime };
}

/** The most jobs holding a slot at one moment, from each job's admission and completion times. */
function maxConcurrent(jobs: Job[]): number {
  const edges = jobs.flatMap((j) => [
    { at: j.admittedAt!.getTime(), delta: 1 },
    { at: j.completedAt!.getTime(), delta: -1 },
  ]);
  // At equal times a finish frees its slot before the next admission takes it.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let max = 0;
  for (const edge of edges) max = Math.max(max, (now += edge.delta));
  return max;
}

describe('two processes scheduling one database', () => {
  it('admit exactly as one would: never more than the slots, every job once and finished', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const teams = [];
    for (const owner of [alice, alice, bob, bob]) teams.push({ ownerId: owner.id, ...(await makeTeam(owner.id)).team });
    const a = schedulerOf('a');
    const b = schedulerOf('b');
    await a.cluster.start();
    await b.cluster.start();

    const jobIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      for (const team of teams) {
        const owner = team.ownerId;
        const { jobs } = await sendRequest(owner, team.id, { memberIds: [team.members[i % 2]!.id], text: `/sleep 150\n/reply done ${i} 研究 🚀`, draftKey: `${team.id}-${i}` });
        jobIds.push(jobs[0]!.id);
      }
    }
    a.runtime.start();
    b.runtime.start();

    const finished = await until(
      async () => {
        const rows = await getDb().select().from(schema.jobs).where(inArray(schema.jobs.id, jobIds));
        return rows.every((j) => j.status === 'completed') && rows;
      },
      30_000,
      'every job completed',
    );
    expect(finished).toHaveLength(16);
    expect(maxConcurrent(finished)).toBeLessThanOrEqual(MAX_ACTIVE);
    // Each job ran once: one run per job, and that run is the one the job recorded.
    const runs = await getDb().select().from(schema.runs).where(inArray(schema.runs.id, finished.map((j) => j.runId!)));
    expect(runs).toHaveLength(16);
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    // Both processes took part in planning (the round is shared), and leases split the teams between them.
    expect(a.runtime.stats.admissions + b.runtime.stats.admissions).toBe(16);
    expect(a.cluster.stats.claimed + b.cluster.stats.claimed).toBeGreaterThanOrEqual(teams.length);
  });
});
