import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import { LIMITS } from '@/lib/limits';
import { cancel, start, startRun, TooManyRunsError } from '@/server/agents/runs';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { conversationWith, finished } from './helpers';

const key = () => crypto.randomUUID();
const SLOW = '/sleep 20000\n/reply late';

async function send(auth: Record<string, string>, conversationId: string, text: string, idempotencyKey = key()) {
  return call(messagesRoute.POST, { method: 'POST', headers: auth, params: { id: conversationId }, body: { text, idempotencyKey } });
}

describe('conversation runs in flight per account', () => {
  it('allows 4 at once, answers the 5th with 429 too_many_runs and Retry-After, and frees a slot when one ends', async () => {
    expect(LIMITS.run.inFlightPerAccount).toBe(4);
    const alice = await makeUser('alice');
    const conversations = [];
    for (let i = 0; i < 5; i++) conversations.push((await conversationWith(alice.id, { name: `Q${i}` })).conversation);
    const keys = conversations.map(() => key());
    const accepted = [];
    for (let i = 0; i < 4; i++) {
      const res = await send(alice.auth, conversations[i]!.id, SLOW, keys[i]);
      expect(res.status).toBe(202);
      accepted.push(res.body.run as { id: string });
    }

    // What must not happen: a fifth run executing for the account.
    const fifth = await send(alice.auth, conversations[4]!.id, SLOW, keys[4]);
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get('retry-after')).toBe(String(LIMITS.run.retryAfterSeconds));
    expect(fifth.body).toMatchObject({ error: { code: 'too_many_runs' } });
    expect((fifth.body.error as { message: string }).message).toMatch(/4 conversation runs in progress/);
    await expect(start(alice.id, conversations[4]!.id, { text: SLOW }, { idempotencyKey: key() })).rejects.toThrow(TooManyRunsError);

    // A retry of an accepted message is the same run, not a 429.
    const retry = await send(alice.auth, conversations[0]!.id, SLOW, keys[0]);
    expect(retry.status).toBe(200);
    expect(retry.body.run).toMatchObject({ id: accepted[0]!.id });

    // One ends: the next one fits again.
    expect((await cancel(alice.id, accepted[0]!.id)).status).toBe('cancelled');
    const now = await send(alice.auth, conversations[4]!.id, SLOW, keys[4]);
    expect(now.status).toBe(202);

    for (const run of [...accepted.slice(1), now.body.run as { id: string }]) await cancel(alice.id, run.id);
  });

  it("another owner's runs don't count against you", async () => {
    const carol = await makeUser('carol');
    const dan = await makeUser('dan');
    const carolRuns = [];
    for (let i = 0; i < 4; i++) {
      const { conversation } = await conversationWith(carol.id, { name: `C${i}` });
      carolRuns.push((await start(carol.id, conversation.id, { text: SLOW }, { idempotencyKey: key() })).run);
    }
    const { conversation } = await conversationWith(dan.id, { name: 'Dan' });
    const res = await send(dan.auth, conversation.id, '/reply mine');
    expect(res.status).toBe(202);
    expect((await finished((res.body.run as { id: string }).id)).status).toBe('success');
    for (const run of carolRuns) await cancel(carol.id, run.id);
  });

  it('team job runs are not counted: they go through the owner-fair scheduler', async () => {
    const erin = await makeUser('erin');
    const jobRuns = [];
    for (let i = 0; i < 4; i++) {
      const { conversation } = await conversationWith(erin.id, { name: `Job${i}` });
      // Exactly what the scheduler does for an admitted job (server/teams/execution.ts launchJob).
      jobRuns.push((await startRun(conversation.id, { text: SLOW }, { idempotencyKey: `job:${key()}:start`, context: { teamId: 't', jobId: key(), memberId: 'm' } })).run);
    }
    const direct = [];
    for (let i = 0; i < 4; i++) {
      const { conversation } = await conversationWith(erin.id, { name: `Direct${i}` });
      const res = await send(erin.auth, conversation.id, SLOW);
      expect(res.status).toBe(202);
      direct.push(res.body.run as { id: string });
    }
    const { conversation } = await conversationWith(erin.id, { name: 'One too many' });
    expect((await send(erin.auth, conversation.id, SLOW)).status).toBe(429);
    for (const run of [...jobRuns, ...direct]) await cancel(erin.id, run.id);
  });
});
