import { vi } from 'vitest';

// The operator's cap for this file (read once, when lib/limits.ts loads): before any import.
vi.hoisted(() => {
  process.env.DAILY_TOKEN_CAP_PER_ACCOUNT = '5000';
});

import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import { LIMITS } from '@/lib/limits';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { assertDailyCap, DailyTokenCapError, nextUtcMidnight, utcDayStart } from '@/server/budgets/daily-cap';
import { start, startRun } from '@/server/agents/runs';
import { loadSchedulingView } from '@/server/scheduler/view';
import { sendRequest } from '@/server/teams/requests';
import { getTeam } from '@/server/teams/teams';
import { conversationWith, finished } from '../agents/helpers';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { seedRun } from './support';

const CAP = 5_000;
const DAY = 86_400_000;
const key = () => crypto.randomUUID();

/** An account with `used` tokens spent today (real time: the route reads the real clock). */
async function accountAt(used: number) {
  const user = await makeUser('capped');
  const { conversation } = await conversationWith(user.id);
  if (used > 0) await seedRun({ ownerId: user.id, conversationId: conversation.id, tokens: used, createdAt: Date.now() });
  return { user, conversation };
}

describe('the daily token cap per account', () => {
  it('comes from DAILY_TOKEN_CAP_PER_ACCOUNT', () => {
    expect(LIMITS.budget.dailyPerAccount).toBe(CAP);
  });

  it('one token below the cap, a conversation message starts a run', async () => {
    const { user, conversation } = await accountAt(CAP - 1);
    const res = await call(messagesRoute.POST, { method: 'POST', headers: user.auth, params: { id: conversation.id }, body: { text: '/reply fine', idempotencyKey: key() } });
    expect(res.status).toBe(202);
    expect((await finished((res.body.run as { id: string }).id)).status).toBe('success');
  });

  it('at the cap and one past, a new message is refused with 429 daily_token_cap, a clear message and Retry-After until UTC midnight', async () => {
    for (const used of [CAP, CAP + 1]) {
      const { user, conversation } = await accountAt(used);
      const before = Date.now();
      const res = await call(messagesRoute.POST, { method: 'POST', headers: user.auth, params: { id: conversation.id }, body: { text: '/reply no', idempotencyKey: key() } });
      const after = Date.now();
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ error: { code: 'daily_token_cap' } });
      expect((res.body.error as { message: string }).message).toMatch(/daily token allowance \(5,00[01] of 5,000 tokens today\)\. It resets at midnight UTC, in \d+ (h \d+ )?min\./);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((nextUtcMidnight(after) - after) / 1000));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((nextUtcMidnight(before) - before) / 1000));
      // What must not happen: a run created (and spending) past the cap.
      const runs = await getDb().select({ id: schema.runs.id }).from(schema.runs).where(eq(schema.runs.conversationId, conversation.id));
      expect(runs).toHaveLength(1); // the seeded one
      await expect(start(user.id, conversation.id, { text: '/reply no' }, { idempotencyKey: key() })).rejects.toThrow(DailyTokenCapError);
    }
  });

  it('resets at UTC midnight: refused at the last millisecond of the day, allowed at midnight (injected clock)', async () => {
    const user = await makeUser('clock');
    const { conversation } = await conversationWith(user.id);
    const midnight = Date.UTC(2020, 0, 2);
    await seedRun({ ownerId: user.id, conversationId: conversation.id, tokens: CAP, createdAt: midnight - 60_000 });
    let error: unknown;
    try {
      await assertDailyCap(user.id, { now: midnight - 1, cap: CAP });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DailyTokenCapError);
    expect((error as DailyTokenCapError).headers).toEqual({ 'Retry-After': '1' });
    await expect(assertDailyCap(user.id, { now: midnight, cap: CAP })).resolves.toBeUndefined();
    // One hour before midnight, Retry-After is that hour and the message says so.
    try {
      await assertDailyCap(user.id, { now: midnight - 3_600_000, cap: CAP });
    } catch (e) {
      error = e;
    }
    expect((error as DailyTokenCapError).headers).toEqual({ 'Retry-After': '3600' });
    expect((error as Error).message).toMatch(/in 1 h 0 min\./);
    expect(utcDayStart(midnight + DAY - 1)).toBe(midnight);
    // A cap of 0 is no cap.
    await expect(assertDailyCap(user.id, { now: midnight - 1, cap: 0 })).resolves.toBeUndefined();
  });

  it('a team job’s run is not refused by the cap (admission holds team work instead)', async () => {
    const { user } = await accountAt(CAP);
    const { team } = await makeTeam(user.id);
    const { run } = await startRun(team.members[0]!.conversationId!, { text: '/reply scheduled' }, { idempotencyKey: key(), context: { teamId: team.id } });
    expect(run.teamId).toBe(team.id);
    await finished(run.id);
  });

  it('holds the account’s queued team work at the cap (and one past), until UTC midnight; another account is not held', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const { team: bobs } = await makeTeam(bob.id);
    const midnight = Date.UTC(2020, 0, 3);
    const aliceJob = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply later', draftKey: 'a' })).jobs[0]!.id;
    const bobJob = (await sendRequest(bob.id, bobs.id, { memberIds: [bobs.members[0]!.id], text: '/reply now', draftKey: 'b' })).jobs[0]!.id;
    const offered = async (now: number) => (await loadSchedulingView({ now, cap: CAP })).queues.flatMap((q) => q.candidates.map((c) => c.jobId));

    await seedRun({ ownerId: alice.id, conversationId: team.members[1]!.conversationId!, tokens: CAP - 1, createdAt: midnight - 120_000 });
    expect(await offered(midnight - 1)).toEqual(expect.arrayContaining([aliceJob, bobJob]));
    await seedRun({ ownerId: alice.id, conversationId: team.members[1]!.conversationId!, tokens: 1, createdAt: midnight - 60_000 });
    expect(await offered(midnight - 1)).toEqual([bobJob]);
    await seedRun({ ownerId: alice.id, conversationId: team.members[1]!.conversationId!, tokens: 1, createdAt: midnight - 30_000 });
    expect(await offered(midnight - 1)).toEqual([bobJob]);
    expect(await offered(midnight)).toEqual(expect.arrayContaining([aliceJob, bobJob]));
    // The workspace says why (real clock: the runs above are from 2020, so only a run of today holds it now).
    await seedRun({ ownerId: alice.id, conversationId: team.members[1]!.conversationId!, tokens: CAP, createdAt: Date.now() });
    expect((await getTeam(alice.id, team.id)).admissionHeld).toBe('daily_token_cap');
    expect((await getTeam(bob.id, bobs.id)).admissionHeld).toBeNull();
  });
});
