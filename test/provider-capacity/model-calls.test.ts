import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '@/server/agents/runs';
import { schema, writeTx } from '@/server/db';
import { conversationWith, finished, until } from '../agents/helpers';
import { startSseProvider, textStream } from '../model-call/sse-provider';
import { eventsOf, ofType } from '../observe/helpers';
import { makeUser } from '../support/users';

// An OpenAI-compatible server that holds each answer until the test lets it go, counting requests in flight.
let inFlight = 0;
let most = 0;
const gates: Array<() => void> = [];
const provider = await startSseProvider(async (_request, n) => {
  inFlight++;
  most = Math.max(most, inFlight);
  await new Promise<void>((resolve) => (gates[n - 1] = resolve));
  inFlight--;
  return { sse: textStream(`answer ${n}`, { role: true, usage: { prompt_tokens: 5, completion_tokens: 2 } }) };
});

beforeAll(async () => {
  // A provider an admin added with a cap of one call at a time (and no key: a local server needs none).
  await writeTx((tx) =>
    tx.insert(schema.providers).values({ id: crypto.randomUUID(), slug: 'capped', name: 'Capped', kind: 'openai', baseUrl: provider.baseURL, maxConcurrent: 1, updatedAt: new Date() }),
  );
});
afterAll(() => provider.close());

describe('provider capacity on real model calls', () => {
  it('two accounts’ runs on one provider with a cap of one: the second waits, says why in its Steps, then runs; never two calls at once', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const first = await conversationWith(ann.id, { name: 'First', model: 'capped:stub-model' });
    const second = await conversationWith(bob.id, { name: 'Second', model: 'capped:stub-model' });
    const { run: a } = await start(ann.id, first.conversation.id, { text: 'hello' }, { idempotencyKey: crypto.randomUUID() });
    await until(() => provider.requests.length === 1);
    const { run: b } = await start(bob.id, second.conversation.id, { text: 'hello too' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => ofType(await eventsOf(b.id), 'model.wait').length > 0);
    // Must not happen: the second call sent beside the first (a provider allowing one answers it 429).
    expect(provider.requests).toHaveLength(1);
    expect(ofType(await eventsOf(b.id), 'model.wait')[0]).toMatchObject({ model: 'capped:stub-model', reason: 'concurrency', inFlight: 1, max: 1 });

    gates[0]!();
    await until(() => provider.requests.length === 2);
    gates[1]!();
    expect(await finished(a.id)).toMatchObject({ status: 'success' });
    expect(await finished(b.id)).toMatchObject({ status: 'success' });
    expect(most).toBe(1);
    // The wait is not the call's latency: one model.call each, no error.
    for (const id of [a.id, b.id]) expect(ofType(await eventsOf(id), 'model.call').map((e) => e.error)).toEqual([undefined]);
    expect(ofType(await eventsOf(a.id), 'model.wait')).toEqual([]);
  });
});
