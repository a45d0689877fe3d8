import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScript } from '@/server/agents/directives';
import { getState, start } from '@/server/agents/runs';
import { pushBus, type LiveOutputChange } from '@/server/push/bus';
import { makeUser } from '../support/users';
import { conversationWith, finished, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';

/**
 * `/flaky N` makes the scripted model fail the first N attempts of each model call as a provider's 429 (Retry-After
 * 2 s), after writing its first word: the retry policy and the card's notice can be watched without a real
 * provider. What must not happen: the broken attempt's word stored, a call retried past MODEL_MAX_ATTEMPTS.
 */

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('/flaky N', () => {
  it('1: the first attempt writes a word and fails, the second answers; the card heard the retry', { timeout: 30_000 }, async () => {
    const heard: LiveOutputChange[] = [];
    const on = (c: LiveOutputChange) => heard.push(c);
    pushBus().on('liveOutput', on);
    stops.push(() => pushBus().off('liveOutput', on));
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { instructions: '/flaky 1\n/reply Done after a retry, 東京 😀.' });
    const run = await send(ann.id, conversation.id, 'Go');
    expect(run).toMatchObject({ status: 'success', error: null });
    expect((await getState(ann.id, conversation.id)).messages.map((m) => m.text)).toEqual(['Go', 'Done after a retry, 東京 😀.']);
    const calls = ofType(await eventsOf(run.id), 'model.call');
    expect(calls.map((c) => [c.attempt, c.error])).toEqual([
      [1, '429 Scripted rate limit (/flaky)'],
      [2, undefined],
    ]);
    const mine = heard.filter((c) => c.runId === run.id);
    expect(mine.find((c) => c.retrying)).toMatchObject({ text: '', retrying: { attempt: 2, maxAttempts: 3 } });
  });

  it('3 with the default 3 attempts: the run fails with the last error after three calls', { timeout: 30_000 }, async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { instructions: '/flaky 3\n/reply Never.' });
    const { run: started } = await start(ann.id, conversation.id, { text: 'Go' }, { idempotencyKey: crypto.randomUUID() });
    const run = await finished(started.id, 20_000);
    expect(run).toMatchObject({ status: 'error', error: '429 Scripted rate limit (/flaky)' });
    expect(ofType(await eventsOf(run.id), 'model.call').map((c) => c.attempt)).toEqual([1, 2, 3]);
  });

  it('takes 1 to 9 attempts (9 and 1 accepted, 0 and 10 refused)', () => {
    expect(parseScript('/flaky 1').flaky).toBe(1);
    expect(parseScript('/flaky 9').flaky).toBe(9);
    expect(parseScript('/flaky 0').errors).toEqual(['/flaky 0: expected 1 to 9 failed attempts']);
    expect(parseScript('/flaky 10').errors).toEqual(['/flaky 10: expected 1 to 9 failed attempts']);
    expect(parseScript('/flaky x').errors).toHaveLength(1);
  });
});
