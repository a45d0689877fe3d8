import { signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/conversations/actions');
const { getDb, schema } = await import('@/server/db');
const { eq } = await import('drizzle-orm');
const { makeUser } = await import('../support/users');
const { conversationWith, finished } = await import('../agents/helpers');
const { seedRun } = await import('./support');
const { LIMITS } = await import('@/lib/limits');

// The operator's cap, set for this file (DAILY_TOKEN_CAP_PER_ACCOUNT before start-up does the same; daily-cap.test.ts
// covers that path — vi.hoisted here would come before action-session's next/headers mock).
const budget = LIMITS.budget as { dailyPerAccount: number };
const unset = budget.dailyPerAccount;
beforeAll(() => {
  budget.dailyPerAccount = 2_000;
});
afterAll(() => {
  budget.dailyPerAccount = unset;
});

const runsIn = async (conversationId: string) =>
  (await getDb().select({ id: schema.runs.id }).from(schema.runs).where(eq(schema.runs.conversationId, conversationId))).length;

describe('the conversation composer’s send at the daily cap', () => {
  it('answers daily_token_cap with the message the composer shows, for a flood of sends too, and starts no run', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    await seedRun({ ownerId: alice.id, conversationId: conversation.id, tokens: 2_000, createdAt: Date.now() });
    signIn(alice);
    // A flood, one after another: each send's check and insert are one write transaction, so interleaving
    // adds nothing (and vitest's next/headers mock can't be loaded by concurrent first calls).
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await actions.sendMessageAction(conversation.id, { text: '/reply no', idempotencyKey: crypto.randomUUID() }));
    for (const result of results) {
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'daily_token_cap', message: expect.stringMatching(/^Your account has used its daily token allowance \(2,000 of 2,000 tokens today\)\. It resets at midnight UTC/) },
      });
    }
    // What must not happen: any of them starting a run past the cap.
    expect(await runsIn(conversation.id)).toBe(1);

    // Another account is not capped by alice's usage.
    const bob = await makeUser('bob');
    const { conversation: bobs } = await conversationWith(bob.id);
    signIn(bob);
    const sent = await actions.sendMessageAction(bobs.id, { text: '/reply yes', idempotencyKey: crypto.randomUUID() });
    if (!sent.ok) throw new Error(`bob's send was refused: ${JSON.stringify(sent.error)}`);
    expect((await finished(sent.data.run.id)).status).toBe('success');
  });
});
