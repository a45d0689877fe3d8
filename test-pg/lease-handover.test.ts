import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { createConversation } from '@/server/agents/conversations';
import { findRun, startRun } from '@/server/agents/runs';
import { takeOverOrphanedRuns } from '@/server/agents/run-takeover';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { setCurrentCluster } from '@/server/cluster/cluster';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { getDb, openDatabase, schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { makeAgents, makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// Issue 31: kill → first progress of the dead process's teams ≤ 15 s, which includes re-running the step the kill
// interrupted (up to 8 s in the crash test, scripts/crash-test.ts). So the takeover itself, with the shipped timings
// (LIMITS.cluster), must come within 6 s of the dead process's last beat. What must not happen: a team left without a
// holder for longer than that after its holder died (the old 10 s lease and 3 s beat took up to 13 s).

const TAKEOVER_BOUND_MS = 6_000;
const clusters: SharedCluster[] = [];
let fenced: string[] = [];

function processNamed(name: string, options: { heartbeatMs?: number; leaseMs?: number; missedBeatMs?: number } = {}): SharedCluster {
  const cluster = new SharedCluster({
    url: process.env.DATABASE_URL!,
    identity: { id: `${name}-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    ...options,
    onFenced: (reason) => fenced.push(`${name}: ${reason}`),
  });
  clusters.push(cluster);
  return cluster;
}

const lease = async (teamId: string) => (await getDb().select().from(schema.teamLeases).where(eq(schema.teamLeases.teamId, teamId)))[0];
const runProcess = async (runId: string) => (await findRun(runId))?.processId;

/** A team with work, and a run that `holder` executes as far as the database knows (nothing executes it here). */
async function teamAndRunOf(label: string, holderId: () => string) {
  const owner = await makeUser(label);
  const { team } = await makeTeam(owner.id);
  await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply hi', draftKey: `${team.id}-1` });
  const [agent] = await makeAgents(owner.id, [`Agent ${label}`]);
  const conversation = await createConversation(owner.id, agent!.id);
  await suspendActiveRuns();
  const { run } = await startRun(conversation.id, { text: '/reply taken over' }, { idempotencyKey: crypto.randomUUID() });
  resumeRunLaunches();
  return { team, run, ownRun: () => writeTx((tx) => tx.update(schema.runs).set({ processId: holderId() }).where(eq(schema.runs.id, run.id))) };
}

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

describe('lease handover with the shipped timings', () => {
  it('leaseMs + heartbeatMs leave room for the step re-run inside 15 s, and a self-fence comes before the lease ends', () => {
    expect(LIMITS.cluster.leaseMs + LIMITS.cluster.heartbeatMs).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    expect(LIMITS.cluster.selfFenceMs).toBeLessThan(LIMITS.cluster.leaseMs);
    // Two beats fit in a lease with room: one late beat does not cost a live process its teams.
    expect(LIMITS.cluster.heartbeatMs * 3).toBeLessThanOrEqual(LIMITS.cluster.leaseMs);
  });

  it("another process holds a dead process's team within 6 s of the dead one's last beat", async () => {
    const owner = await makeUser('handover');
    const { team } = await makeTeam(owner.id);
    await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply hi', draftKey: `${team.id}-1` });
    // "Killed" right after its first beat: it never beats again (the worst case: its lease was just renewed).
    const dead = processNamed('dead', { heartbeatMs: 3_600_000 });
    await dead.start();
    const lastBeat = performance.now();
    expect(dead.heldTeams()).toEqual([team.id]);

    const survivor = processNamed('survivor');
    await survivor.start();
    expect(survivor.heldTeams()).toEqual([]);
    await until(() => survivor.heldTeams().includes(team.id), 15_000, 'the survivor to take the team over');
    expect(performance.now() - lastBeat).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
  }, 30_000);
});

describe('a beat at the end of a lease', () => {
  // A survivor that saw another process miss a beat beats again the moment that process's lease ends, instead of at
  // its own next regular beat (up to a beat later). The survivors here never beat on their own (an hour's interval):
  // only that extra beat can take anything over.
  // The shipped lease: a run's liveness is judged with it (run-takeover.ts), whatever the cluster object was given.
  const LEASE_MS = LIMITS.cluster.leaseMs;
  const MISSED_MS = 500;

  it("takes a dead process's team and run over when its lease ends, never before", async () => {
    let deadId = '';
    const { team, run, ownRun } = await teamAndRunOf('expiry', () => deadId);
    const dead = processNamed('dead', { heartbeatMs: 3_600_000, leaseMs: LEASE_MS });
    deadId = dead.processId;
    await dead.start();
    const lastBeat = performance.now();
    await ownRun();
    // (Teams of the file's earlier tests may be held too: they still have work.)
    expect(dead.heldTeams()).toContain(team.id);

    const survivor = processNamed('survivor', { heartbeatMs: 3_600_000, leaseMs: LEASE_MS, missedBeatMs: MISSED_MS });
    setCurrentCluster(survivor);
    const rounds: number[] = [];
    survivor.onTick('run takeover', async () => {
      if ((await takeOverOrphanedRuns()).length > 0) rounds.push(performance.now());
    });
    await survivor.start();
    // One beat after the dead one missed its next: the survivor now knows when the lease ends.
    await until(() => performance.now() - lastBeat > MISSED_MS + 50, 5_000, 'the dead process to miss a beat');
    await survivor.tick();
    // Must not happen: anything taken while the lease still runs.
    expect(survivor.heldTeams()).not.toContain(team.id);
    expect(await runProcess(run.id)).toBe(dead.processId);

    await until(() => survivor.heldTeams().includes(team.id), 5_000, 'the survivor to take the team over at the lease end');
    const tookAt = performance.now() - lastBeat;
    expect(tookAt).toBeGreaterThanOrEqual(LEASE_MS);
    // At the lease end, not at a later beat (the survivor has none for an hour); the bound only absorbs a busy machine.
    expect(tookAt).toBeLessThan(LEASE_MS + 1_000);
    expect(await lease(team.id)).toMatchObject({ processId: survivor.processId, epoch: 2 });
    await until(() => rounds.length > 0, 5_000, 'the same beat to take the run over');
    expect(await runProcess(run.id)).toBe(survivor.processId);
    await until(async () => (await findRun(run.id))?.status === 'success', 10_000, 'the taken-over run to finish');
  }, 30_000);

  it('a slow holder that beats again before its lease ends keeps its team and run; the extra beat takes nothing', async () => {
    let slowId = '';
    const { team, run, ownRun } = await teamAndRunOf('slow', () => slowId);
    const slow = processNamed('slow', { heartbeatMs: 3_600_000, leaseMs: LEASE_MS });
    slowId = slow.processId;
    await slow.start();
    const firstBeat = performance.now();
    await ownRun();

    const survivor = processNamed('survivor', { heartbeatMs: 3_600_000, leaseMs: LEASE_MS, missedBeatMs: MISSED_MS });
    setCurrentCluster(survivor);
    survivor.onTick('run takeover', async () => void (await takeOverOrphanedRuns()));
    await survivor.start();
    await until(() => performance.now() - firstBeat > MISSED_MS + 50, 5_000, 'the slow process to miss a beat');
    await survivor.tick();
    const beatsBefore = survivor.stats.beats;
    // Late, but inside its lease: it renews everything it holds.
    await slow.tick();
    await until(() => survivor.stats.beats > beatsBefore, 5_000, "the survivor's beat at the first lease end");
    await survivor.hooksSettled;

    // Must not happen: the live holder losing its team, or its run executed a second time elsewhere.
    expect(survivor.heldTeams()).not.toContain(team.id);
    expect(await lease(team.id)).toMatchObject({ processId: slow.processId, epoch: 1 });
    expect(await runProcess(run.id)).toBe(slow.processId);
    // Its next beat goes on as before: same epoch, nobody fenced.
    await slow.tick();
    expect(slow.holds(team.id)).toBe(true);
    expect(await lease(team.id)).toMatchObject({ processId: slow.processId, epoch: 1 });
    expect(fenced).toEqual([]);
  }, 30_000);

  it('a beat during a takeover round gets one more round right after it, not at a later beat', async () => {
    const c = processNamed('rounds', { heartbeatMs: 3_600_000 });
    let calls = 0;
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    c.onTick('slow round', async () => {
      calls += 1;
      if (calls === 1) await blocked;
    });
    await c.start();
    expect(calls).toBe(1);
    // Two beats while the first round is still busy: one more round, not none and not two.
    await c.tick();
    await c.tick();
    expect(calls).toBe(1);
    release();
    await c.hooksSettled;
    expect(calls).toBe(2);
  });
});
