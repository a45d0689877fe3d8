import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun, findRun, start, startRun } from '@/server/agents/runs';
import { carryOutCancelRequests, routeCancel, takeOverOrphanedRuns } from '@/server/agents/run-takeover';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { createConversation } from '@/server/agents/conversations';
import { setCurrentCluster } from '@/server/cluster/cluster';
import { LeaseLostError, runFenced } from '@/server/cluster/fence';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { getDb, openDatabase, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { touchTeam } from '@/server/teams/revision';
import { makeAgents, makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// server/cluster (ADR 033 §4–5): several app processes on one Postgres database. Each "process" here is a
// SharedCluster with an identity of its own over the file's database; what must never happen: two processes holding
// one team, a step writing after its team was taken over, two planning passes at once, a live process's run taken,
// a dead process's run left unfinished.

const clusters: SharedCluster[] = [];
let fenced: string[] = [];

function process_(name: string, options: { leaseMs?: number; heartbeatMs?: number; selfFenceMs?: number } = {}): SharedCluster {
  const cluster = new SharedCluster({
    url: process.env.DATABASE_URL!,
    identity: { id: `${name}-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    // A long beat by default: the tests beat by hand (tick()), except where a process must look dead.
    heartbeatMs: options.heartbeatMs ?? 60_000,
    leaseMs: options.leaseMs ?? 10_000,
    selfFenceMs: options.selfFenceMs ?? 60_000,
    onFenced: (reason) => fenced.push(`${name}: ${reason}`),
  });
  clusters.push(cluster);
  return cluster;
}

const lease = async (teamId: string) => (await getDb().select().from(schema.teamLeases).where(eq(schema.teamLeases.teamId, teamId)))[0];
const revision = async (teamId: string) => (await getDb().select({ r: schema.teams.revision }).from(schema.teams).where(eq(schema.teams.id, teamId)))[0]!.r;

beforeAll(async () => {
  await openDatabase();
});
afterEach(async () => {
  setCurrentCluster(undefined);
  fenced = [];
  await Promise.all(clusters.splice(0).map((c) => c.stop().catch(() => undefined)));
});
afterAll(async () => {
  await suspendActiveRuns();
});

describe('team leases', () => {
  it('one live holder per team; another process gets it only once the lease expired, at the next epoch', async () => {
    const owner = await makeUser('lease');
    const { team } = await makeTeam(owner.id);
    const a = process_('a', { leaseMs: 400 });
    const b = process_('b', { leaseMs: 400 });
    await a.start();
    await b.start();

    expect(await a.claim(team.id)).toBe(true);
    expect(a.holds(team.id)).toBe(true);
    // Must not happen: B holding the team while A's lease is live.
    expect(await b.claim(team.id)).toBe(false);
    expect(b.holds(team.id)).toBe(false);
    expect((await lease(team.id))!.processId).toBe(a.processId);

    // A stops beating (as if SIGKILLed): its lease runs out and B takes the team at the next epoch.
    await until(() => b.claim(team.id), 5_000, 'B claims the expired lease');
    expect(await lease(team.id)).toMatchObject({ processId: b.processId, epoch: 2 });
    // A's next beat finds it was judged dead: it stops, holding nothing.
    await a.tick();
    expect(a.holds(team.id)).toBe(false);
    expect(fenced).toEqual([expect.stringMatching(/^a: no heartbeat recorded for longer than the lease/)]);
  });

  it('a holder renewing its own lease keeps its epoch; a graceful stop hands the team over at once', async () => {
    const owner = await makeUser('renew');
    const { team } = await makeTeam(owner.id);
    const a = process_('a');
    const b = process_('b');
    await a.start();
    await b.start();
    await a.claim(team.id);
    await a.tick();
    expect(await a.claim(team.id)).toBe(true);
    expect((await lease(team.id))!.epoch).toBe(1);

    await a.stop();
    // No waiting for expiry: the leases and the process row went with the stop.
    expect(await lease(team.id)).toBeUndefined();
    expect(await b.claim(team.id)).toBe(true);
    expect((await getDb().select().from(schema.appProcesses).where(eq(schema.appProcesses.id, a.processId))).length).toBe(0);
  });

  it('claims its share of teams with work and gives back teams with nothing left to do', async () => {
    const owner = await makeUser('share');
    const teams: { id: string }[] = [];
    for (let i = 0; i < 4; i++) teams.push((await makeTeam(owner.id)).team);
    await writeTx(async (tx) => {
      for (const t of teams) await tx.update(schema.teams).set({ hasPending: 1 }).where(eq(schema.teams.id, t.id));
    });
    const a = process_('a');
    const b = process_('b');
    await a.start();
    await b.start();
    // A claimed all four at its start (it was alone); B's share of 4 teams over 2 live processes is 2, all taken.
    await a.tick();
    await b.tick();
    expect(a.heldTeams().length + b.heldTeams().length).toBe(4);
    expect(new Set([...a.heldTeams(), ...b.heldTeams()]).size).toBe(4);

    await writeTx(async (tx) => {
      for (const t of teams) await tx.update(schema.teams).set({ hasPending: 0 }).where(eq(schema.teams.id, t.id));
    });
    await a.tick();
    await b.tick();
    expect([...a.heldTeams(), ...b.heldTeams()]).toEqual([]);
    expect(await getDb().select().from(schema.teamLeases)).toEqual([]);
  });
});

describe('fencing', () => {
  it('a step whose team was taken over writes nothing; the new holder\'s step writes', async () => {
    const owner = await makeUser('fence');
    const { team } = await makeTeam(owner.id);
    const a = process_('a', { leaseMs: 300 });
    const b = process_('b', { leaseMs: 300 });
    await a.start();
    await b.start();
    await a.claim(team.id);
    const staleFence = a.fenceFor(team.id)!;
    await until(() => b.claim(team.id), 5_000, 'B takes the team over');
    const before = await revision(team.id);

    // A stalled past its lease and now tries to finish its step: refused, and the revision did not move.
    await expect(runFenced(staleFence, () => writeTx((tx) => touchTeam(tx, team.id, [])))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await revision(team.id)).toBe(before);

    await runFenced(b.fenceFor(team.id)!, () => writeTx((tx) => touchTeam(tx, team.id, [])));
    expect(await revision(team.id)).toBe(before + 1);
  });

  it('a process that could not beat for longer than its self-fence time stops itself', async () => {
    const a = process_('a', { selfFenceMs: 50 });
    await a.start();
    expect(fenced).toEqual([]);
    // Nothing beats it (its timer is a minute): it is late as soon as 50 ms have passed.
    await until(() => a.late(), 2_000, 'A notices it is late');
    expect(fenced).toEqual([expect.stringMatching(/^a: no heartbeat for \d+ ms \(limit 50 ms\)$/)]);
  });

  it('a process whose row was removed (judged dead) stops at its next beat', async () => {
    const a = process_('a');
    await a.start();
    await writeTx((tx) => tx.delete(schema.appProcesses).where(eq(schema.appProcesses.id, a.processId)));
    await a.tick();
    expect(fenced).toEqual([expect.stringMatching(/^a: no heartbeat recorded for longer than the lease/)]);
  });

  it('a process whose last recorded beat is older than the lease (its event loop stalled) stops at its next beat', async () => {
    const a = process_('a', { leaseMs: 1_000 });
    await a.start();
    // As if A's event loop had been blocked for 5 s: the others judge it dead from this column, so A must stop.
    await writeTx((tx) => tx.update(schema.appProcesses).set({ heartbeatAt: new Date(Date.now() - 5_000) }).where(eq(schema.appProcesses.id, a.processId)));
    await a.tick();
    expect(fenced).toEqual([expect.stringMatching(/^a: no heartbeat recorded for longer than the lease \(1000 ms\)/)]);
  });

  it('a beat that is merely late, with the lease still running, goes on', async () => {
    const a = process_('a', { leaseMs: 10_000, selfFenceMs: 50 });
    await a.start();
    await until(async () => {
      await a.tick();
      return a.stats.beats >= 3;
    }, 2_000, 'three beats');
    expect(fenced).toEqual([]);
  });
});

describe('the planning pass', () => {
  it('runs one process at a time, each seeing the round the previous one left', async () => {
    const a = process_('a');
    const b = process_('b');
    const spans: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const aInside = new Promise<void>((resolve) => (entered = resolve));
    const first = a.planningPass(async (round) => {
      spans.push(`a in (${JSON.stringify(round)})`);
      entered();
      await gate;
      spans.push('a out');
      return { round: { due: ['alice'], served: ['bob'] }, value: 'a' };
    });
    await aInside;
    const second = b.planningPass(async (round) => {
      spans.push(`b in (${JSON.stringify(round)})`);
      return { round: { due: [], served: ['alice', 'bob'] }, value: 'b' };
    });
    // B is blocked on the lock while A is inside. Must not happen: "b in" before "a out".
    const blocked = await Promise.race([second.then(() => 'b finished'), new Promise((r) => setTimeout(() => r('b waits'), 300))]);
    expect(blocked).toBe('b waits');
    release();
    expect(await first).toBe('a');
    expect(await second).toBe('b');
    expect(spans).toEqual(['a in (null)', 'a out', 'b in ({"due":["alice"],"served":["bob"]})']);
  });

  it('a pass that fails keeps the previous round and releases the lock', async () => {
    const a = process_('a');
    await a.planningPass(async () => ({ round: { due: ['x'], served: [] }, value: undefined }));
    await expect(a.planningPass(async () => Promise.reject(new Error('view unreadable')))).rejects.toThrow('view unreadable');
    expect(await a.planningPass(async (round) => ({ round, value: round }))).toEqual({ due: ['x'], served: [] });
  });
});

const runProcess = statement('select process_id as p, status from runs where id = ?');

describe('runs across processes', () => {
  async function conversation(label: string) {
    const owner = await makeUser(label);
    const [agent] = await makeAgents(owner.id, [`Agent ${label}`]);
    return createConversation(owner.id, agent!.id);
  }

  /** A run written by `processId` that is not executing in this test process (as if that process had died). */
  async function orphanedRun(conversationId: string, processId: string, text: string) {
    await suspendActiveRuns();
    const { run } = await startRun(conversationId, { text }, { idempotencyKey: crypto.randomUUID() });
    resumeRunLaunches();
    await writeTx((tx) => tx.update(schema.runs).set({ processId }).where(eq(schema.runs.id, run.id)));
    return run;
  }

  it('takes over and finishes the run of a process that stopped beating, never the run of a live one', async () => {
    const dead = await conversation('dead');
    const live = await conversation('live');
    const a = process_('a');
    const b = process_('b');
    await a.start();
    await b.start();
    const deadRun = await orphanedRun(dead.id, 'gone-process', '/reply taken over');
    const liveRun = await orphanedRun(live.id, a.processId, '/reply still mine');

    setCurrentCluster(b);
    const report = await takeOverOrphanedRuns();
    expect(report).toEqual([{ runId: deadRun.id, action: 'executed' }]);
    await until(async () => (await findRun(deadRun.id))?.status === 'success', 5_000, 'the taken-over run finishes');
    expect(await runProcess.get(deadRun.id)).toEqual({ p: b.processId, status: 'success' });
    // Must not happen: A is alive, so its run stays A's and is not executed a second time.
    expect(await runProcess.get(liveRun.id)).toEqual({ p: a.processId, status: 'pending' });
    // A second beat finds nothing more to take.
    expect(await takeOverOrphanedRuns()).toEqual([]);
  });

  it('a cancel asked in one process stops the run where it executes', async () => {
    const c = await conversation('cancel');
    const a = process_('a');
    const b = process_('b');
    await a.start();
    await b.start();
    setCurrentCluster(a);
    const { run } = await start(c.ownerId, c.id, { text: '/sleep 5000\n/reply too late' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => (await findRun(run.id))?.status === 'running', 5_000, 'the run executes "in A"');

    // B does not execute it: it marks the request and answers at once (waitMs 0) with the run still running.
    setCurrentCluster(b);
    await activeRunsHiddenFrom(run.id, async () => {
      expect((await cancelRun(run.id, { waitMs: 0 })).status).toBe('running');
    });
    await until(async () => (await getDb().select({ at: schema.runs.cancelRequestedAt }).from(schema.runs).where(eq(schema.runs.id, run.id)))[0]!.at, 3_000, 'the request recorded');
    // Asked again (the scheduler reconciles a cancelling job at every pass): the caller is told not to wait again.
    await activeRunsHiddenFrom(run.id, async () => {
      expect(await routeCancel(run.id)).toBe('asked again');
    });

    // A's beat carries the request out: its executor records the cancel.
    setCurrentCluster(a);
    await carryOutCancelRequests();
    await until(async () => (await findRun(run.id))?.status === 'cancelled', 5_000, 'the run cancelled');
  });
});

/**
 * One test process executes every run, so B would find the run in its table of executing runs. Hide it for the call
 * so B takes the path a real second process takes.
 */
function activeRunsHiddenFrom(runId: string, fn: () => Promise<void>): Promise<void> {
  const g = globalThis as unknown as { __ensembleRunRuntime: { active: Map<string, unknown> } };
  const active = g.__ensembleRunRuntime.active;
  const entry = active.get(runId);
  active.delete(runId);
  return fn().finally(() => {
    if (entry) active.set(runId, entry);
  });
}
