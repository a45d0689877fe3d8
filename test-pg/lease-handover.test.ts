import crypto from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { SharedCluster } from '@/server/cluster/shared-cluster';
import { openDatabase } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// Issue 31: kill → first progress of the dead process's teams ≤ 15 s, which includes re-running the step the kill
// interrupted (up to 8 s in the crash test, scripts/crash-test.ts). So the takeover itself, with the shipped timings
// (LIMITS.cluster), must come within 6 s of the dead process's last beat. What must not happen: a team left without a
// holder for longer than that after its holder died (the old 10 s lease and 3 s beat took up to 13 s).

const TAKEOVER_BOUND_MS = 6_000;
const clusters: SharedCluster[] = [];

function processNamed(name: string, options: { heartbeatMs?: number } = {}): SharedCluster {
  const cluster = new SharedCluster({
    url: process.env.DATABASE_URL!,
    identity: { id: `${name}-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    ...options,
    onFenced: () => {},
  });
  clusters.push(cluster);
  return cluster;
}

beforeAll(async () => {
  await openDatabase();
});
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.stop().catch(() => undefined)));
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
