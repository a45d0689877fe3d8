import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTokensToday } from '@/server/budgets/daily-cap';
import { teamTokensUsed } from '@/server/budgets/team-totals';
import { setCurrentCluster } from '@/server/cluster/cluster';
import type { JoinedCluster } from '@/server/cluster/join';
import { getDb, openDatabase, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import { joinSharedDatabase } from '@/server/shared-database';
import { conversationWith } from '@/test/agents/helpers';
import { makeTeam } from '@/test/support/teams';
import { makeUser } from '@/test/support/users';
import { until } from '@/test/support/wait';

// server/budgets/usage-cache.ts with several processes (ADR 033 §6): a run another process finishes reaches this
// one's usage cache as a note on the push bridge. Notes sent while the bridge's LISTEN connection is down are lost,
// so a reconnect must forget every memoized sum. What must not happen: a team's budget or an account's daily cap
// read from a sum that misses the tokens spent elsewhere during the gap (admission past the budget or cap).

const terminate = statement('select pg_terminate_backend(?) as ok');
let joined: JoinedCluster | undefined;
const fenced: string[] = [];

beforeAll(async () => {
  await openDatabase();
  ({ joined } = await joinSharedDatabase({
    url: process.env.DATABASE_URL!,
    identity: { id: `usage-${crypto.randomUUID().slice(0, 8)}`, pid: 1, host: 'test' },
    onFenced: (reason) => fenced.push(reason),
  }));
});
afterAll(async () => {
  await joined?.leave();
  setCurrentCluster(undefined);
});

/** A run finished by another process while this one's bridge was away: its note never arrives here. */
async function runFinishedElsewhere(ownerId: string, conversationId: string, teamId: string, tokens: number): Promise<void> {
  const id = crypto.randomUUID();
  await getDb()
    .insert(schema.runs)
    .values({ id, conversationId, ownerId, idempotencyKey: `elsewhere:${id}`, kind: 'start', status: 'success', model: 'scripted', input: {}, inputTokens: tokens, outputTokens: 0, teamId });
}

describe('the usage cache across a push-bridge reconnect', () => {
  it("forgets every sum, so a team's budget and an account's day count the runs finished during the gap", async () => {
    const owner = await makeUser('usage');
    const { team } = await makeTeam(owner.id);
    const { conversation } = await conversationWith(owner.id);
    // Read (and memoized) before the gap.
    expect(await accountTokensToday(owner.id)).toBe(0);
    expect(await teamTokensUsed(team.id)).toBe(0);

    const bridge = joined!.bridge;
    const pid = bridge.listenerPid!;
    await terminate.get(pid);
    await until(() => bridge.listenerPid === undefined, 5_000, 'the bridge to notice the loss');
    await runFinishedElsewhere(owner.id, conversation.id, team.id, 700);
    await until(() => bridge.stats.reconnects === 1, 10_000, 'the bridge to reconnect');

    expect(await accountTokensToday(owner.id)).toBe(700);
    expect(await teamTokensUsed(team.id)).toBe(700);
    expect(fenced).toEqual([]);
  });
});
