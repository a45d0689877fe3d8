import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { activeRuns, runEvents } from '@/server/agents/run-events';
import { launchRun } from '@/server/agents/run-executor';
import { takeOverOrphanedRuns } from '@/server/agents/run-takeover';
import { findRun, startRun } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { setCurrentCluster } from '@/server/cluster/cluster';
import { LeaseLostError, runFenced } from '@/server/cluster/fence';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { getDb, openDatabase, schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { touchTeam } from '@/server/teams/revision';
import { makeAgents, makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// ADR 044 §7: a process whose event loop was starved past its lease (a fresh process on a loaded machine) stops only
// when it holds something another process could take over and run a second time. Holding no team lease and executing
// no run, it re-registers under a new identity and goes on. What must not happen: a process that held nothing stopping
// (the crash test's processes stopped so at start); a process holding a team or executing a run going on after the
// others may have taken it over; a run written under the given-up identity executed here and by its taker too.

const HEARTBEAT_MS = 100;
const LEASE_MS = 600;
/** Longer than the lease: the others judge the stalled process dead meanwhile. */
const STALL_MS = 1_200;

const clusters: SharedCluster[] = [];
let fenced: string[] = [];

function processNamed(
  name: string,
  options: { executesNoRun?: () => boolean; heartbeatMs?: number; leaseMs?: number; settleMs?: number } = {},
): SharedCluster {
  const cluster = new SharedCluster({
    url: process.env.DATABASE_URL!,
    identity: { id: `${name}-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    leaseMs: options.leaseMs ?? LEASE_MS,
    selfFenceMs: (options.leaseMs ?? LEASE_MS) - 100,
    executesNoRun: options.executesNoRun,
    settleMs: options.settleMs,
    onFenced: (reason) => fenced.push(`${name}: ${reason}`),
  });
  clusters.push(cluster);
  return cluster;
}

/** Block this thread's event loop synchronously, as a starved or busy process would: no timer, no I/O callback runs. */
function starveEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const processRow = async (id: string) => (await getDb().select().from(schema.appProcesses).where(eq(schema.appProcesses.id, id)))[0];
const lease = async (teamId: string) => (await getDb().select().from(schema.teamLeases).where(eq(schema.teamLeases.teamId, teamId)))[0];

async function teamWithWork(label: string) {
  const owner = await makeUser(label);
  const { team } = await makeTeam(owner.id);
  await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply hi', draftKey: `${team.id}-1` });
  return team;
}

beforeAll(async () => {
  await openDatabase();
  // No run of this file executes by itself: launches are explicit.
  await suspendActiveRuns();
  resumeRunLaunches();
});
beforeEach(async () => {
  // Earlier tests' teams still have work and would be claimed by the next process: out of the way, so a process here
  // holds exactly what its test gives it.
  await writeTx(async (tx) => {
    await tx.update(schema.teams).set({ hasPending: 0 });
    await tx.delete(schema.teamLeases);
  });
});
afterEach(async () => {
  setCurrentCluster(undefined);
  fenced = [];
  await Promise.all(clusters.splice(0).map((c) => c.stop().catch(() => undefined)));
});
afterAll(async () => {
  await suspendActiveRuns();
});

describe('a late beat', () => {
  it('of a process holding nothing re-registers under a new identity and goes on working', async () => {
    const idle = processNamed('idle', { executesNoRun: () => true });
    await idle.start();
    const was = idle.processId;
    expect(idle.heldTeams()).toEqual([]);

    starveEventLoop(STALL_MS);
    await until(() => idle.stats.rejoined === 1 || fenced.length > 0, 5_000, 'the first beat after the stall');

    // Must not happen: it stopped although nothing of it could be taken over.
    expect(fenced).toEqual([]);
    expect(idle.processId).not.toBe(was);
    // Its old self is gone for good (nobody can mistake the new one for it); the new one beats.
    expect(await processRow(was)).toBeUndefined();
    const row = await processRow(idle.processId);
    expect(row).toBeDefined();
    expect(Date.now() - row!.heartbeatAt.getTime()).toBeLessThan(LEASE_MS);

    // Later it works: it takes a team with work under its new identity, and a live other process can't take it.
    const team = await teamWithWork('rejoined');
    expect(await idle.claim(team.id)).toBe(true);
    expect(await lease(team.id)).toMatchObject({ processId: idle.processId });
    const other = processNamed('other', { heartbeatMs: 60_000 });
    await other.start();
    expect(await other.claim(team.id)).toBe(false);
    await until(() => idle.stats.beats >= 3, 5_000, 'more beats');
    expect(idle.holds(team.id)).toBe(true);
    expect(fenced).toEqual([]);
  }, 30_000);

  it('of a process holding a team lease still stops it: the team goes to another at the next epoch, the stalled step writes nothing', async () => {
    const team = await teamWithWork('holder');
    const holder = processNamed('holder', { executesNoRun: () => true });
    await holder.start();
    expect(await holder.claim(team.id)).toBe(true);
    const staleFence = holder.fenceFor(team.id)!;
    const was = holder.processId;

    starveEventLoop(STALL_MS);
    await until(() => fenced.length > 0 || holder.stats.rejoined > 0, 5_000, 'the first beat after the stall');

    // Must not happen: a holder going on after its lease ran out (another may already step the team).
    expect(holder.stats.rejoined).toBe(0);
    expect(fenced).toEqual([expect.stringMatching(/^holder: no heartbeat recorded for longer than the lease/)]);
    expect(holder.processId).toBe(was);
    expect(holder.holds(team.id)).toBe(false);

    const taker = processNamed('taker', { heartbeatMs: 60_000 });
    await taker.start();
    await until(() => taker.claim(team.id), 5_000, 'another process to take the team over');
    expect(await lease(team.id)).toMatchObject({ processId: taker.processId, epoch: staleFence.epoch + 1 });
    // The stalled process's step, finishing late: refused (nothing is written twice for one step).
    await expect(runFenced(staleFence, () => writeTx((tx) => touchTeam(tx, team.id, [])))).rejects.toBeInstanceOf(LeaseLostError);
  }, 30_000);

  it('of a process executing a run still stops it', async () => {
    const busy = processNamed('busy', { executesNoRun: () => false });
    await busy.start();

    starveEventLoop(STALL_MS);
    await until(() => fenced.length > 0 || busy.stats.rejoined > 0, 5_000, 'the first beat after the stall');

    // Must not happen: a process executing a run going on while another may take the run over and run it again.
    expect(busy.stats.rejoined).toBe(0);
    expect(fenced).toEqual([expect.stringMatching(/^busy: no heartbeat recorded for longer than the lease/)]);
  }, 30_000);

  it('a run written under the given-up identity is not started here; its taker executes it once', async () => {
    const owner = await makeUser('given-up');
    const [agent] = await makeAgents(owner.id, ['Agent given-up']);
    const conversation = await createConversation(owner.id, agent!.id);
    const stalled = processNamed('stalled', { executesNoRun: () => activeRuns().size === 0 });
    setCurrentCluster(stalled);
    await stalled.start();
    const was = stalled.processId;
    // A run whose creation commits just before the stall: its launch is still queued here when the beat comes.
    await suspendActiveRuns();
    const { run } = await startRun(conversation.id, { text: '/reply once' }, { idempotencyKey: crypto.randomUUID() });
    resumeRunLaunches();
    expect((await findRun(run.id))?.processId).toBe(was);
    const started: string[] = [];
    const onStarted = ({ runId }: { runId: string }) => void (runId === run.id && started.push(runId));
    runEvents().on('run:started', onStarted);
    try {
      starveEventLoop(STALL_MS);
      await until(() => stalled.stats.rejoined === 1 || fenced.length > 0, 5_000, 'the first beat after the stall');
      expect(fenced).toEqual([]);

      // The queued launch goes ahead now, under the new identity. Must not happen: the run starting here, while its
      // row names the identity the others take over.
      launchRun(run.id);
      await until(() => !activeRuns().has(run.id), 5_000, 'the launch to give up');
      expect(started).toEqual([]);
      expect(await findRun(run.id)).toMatchObject({ status: 'pending', processId: was });

      // Another process takes it over (its old owner is gone) and executes it: once.
      const taker = processNamed('taker', { heartbeatMs: 60_000 });
      setCurrentCluster(taker);
      await taker.start();
      await takeOverOrphanedRuns();
      await until(async () => (await findRun(run.id))?.status === 'success', 10_000, 'the taken-over run to finish');
      expect(await findRun(run.id)).toMatchObject({ processId: taker.processId });
      expect(started).toEqual([run.id]);
    } finally {
      runEvents().off('run:started', onStarted);
    }
  }, 30_000);
});

describe('a process just started', () => {
  const SETTLE_MS = 800;

  /** Another process, live throughout (its row beats an hour ahead), holding nothing, started before (or after). */
  async function withAnotherLiveProcess(fn: () => Promise<void>, started: 'before' | 'after' = 'before'): Promise<void> {
    const id = `other-${crypto.randomUUID().slice(0, 8)}`;
    const inAnHour = new Date(Date.now() + 3_600_000);
    const startedAt = started === 'before' ? new Date() : inAnHour;
    await writeTx((tx) => tx.insert(schema.appProcesses).values({ id, pid: 2, host: 'test', startedAt, heartbeatAt: inAnHour }));
    try {
      await fn();
    } finally {
      await writeTx((tx) => tx.delete(schema.appProcesses).where(eq(schema.appProcesses.id, id)));
    }
  }

  it('takes no team over while a process started before it is live, until its beats have been on time for the settle time', async () => {
    const teams = [await teamWithWork('settle-1'), await teamWithWork('settle-2')];
    await withAnotherLiveProcess(async () => {
      const fresh = processNamed('fresh', { settleMs: SETTLE_MS });
      const startedAt = performance.now();
      await fresh.start();
      // Must not happen: a process just started holding a team (a stall now would stop it instead of rejoining), by
      // its share or by a claim for a job its planning pass admitted.
      expect(fresh.heldTeams()).toEqual([]);
      expect(await fresh.claim(teams[0]!.id)).toBe(false);
      await until(() => fresh.heldTeams().length > 0, 5_000, 'the settled process to claim its share');
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(SETTLE_MS);
      // Its share of two teams between two live processes.
      expect(fresh.heldTeams()).toHaveLength(1);
      expect(teams.map((t) => t.id)).toContain(fresh.heldTeams()[0]);
    });
  }, 30_000);

  it('alone, takes its share at its first beat', async () => {
    const team = await teamWithWork('alone');
    const alone = processNamed('alone', { heartbeatMs: 60_000, settleMs: 60_000 });
    await alone.start();
    expect(alone.heldTeams()).toEqual([team.id]);
  });

  it('the oldest live process never waits: with only younger ones live, it takes its share at once', async () => {
    // Several processes restarted one after another must not all be settling when a dead one's lease runs out.
    const team = await teamWithWork('oldest');
    await withAnotherLiveProcess(async () => {
      const oldest = processNamed('oldest', { heartbeatMs: 60_000, settleMs: 60_000 });
      await oldest.start();
      expect(oldest.heldTeams()).toEqual([team.id]);
    }, 'after');
  });

  it('the part of a process that may still be settling goes to the one that takes teams, not left waiting for it', async () => {
    const teams = [await teamWithWork('share-1'), await teamWithWork('share-2')];
    await withAnotherLiveProcess(async () => {
      // The oldest: it takes teams at once, and the younger one, just started, may be settling for a while yet.
      const oldest = processNamed('oldest', { heartbeatMs: 60_000, settleMs: 60_000 });
      await oldest.start();
      // Must not happen: half of the work left without a holder until the younger one settles.
      expect(oldest.heldTeams().sort()).toEqual(teams.map((t) => t.id).sort());
    }, 'after');
  });

  it('settling, starved past its lease: holds nothing, so it rejoins and goes on', async () => {
    await teamWithWork('settle-stall');
    await withAnotherLiveProcess(async () => {
      const fresh = processNamed('fresh', { settleMs: 60_000, executesNoRun: () => true });
      await fresh.start();
      expect(fresh.heldTeams()).toEqual([]);
      starveEventLoop(STALL_MS);
      await until(() => fresh.stats.rejoined === 1 || fenced.length > 0, 5_000, 'the first beat after the stall');
      expect(fenced).toEqual([]);
    });
  }, 30_000);
});
