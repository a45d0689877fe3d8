import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readThread } from '@/server/agents/thread';
import { contentText } from '@/server/agents/messages';
import { createBatch } from '@/server/batches/store';
import { cancelBatch } from '@/server/batches/control';
import { getDb, schema } from '@/server/db';
import { conversationWith, makeAgent, send } from '../agents/helpers';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { batchRow, ended, itemRows, withBatchScheduler } from './helpers';

withBatchScheduler();

const batchCall = (args: Record<string, unknown>) => `/call batch_task ${JSON.stringify(args)}`;

describe('the batch_task tool (explicit only) and owner-fairness', () => {
  it('wait: the calling run waits for the batch and gets its counts and failures as the tool result', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id, { name: 'Worker', instructions: '/reply ok' });
    const { conversation } = await conversationWith(alice.id, { name: 'Lead', toolGroups: ['batch'] });
    const run = await send(
      alice.id,
      conversation.id,
      batchCall({ agentId: worker.id, template: 'Summarize {{doc}}', columns: ['doc'], items: [{ doc: 'a' }, { doc: 'b' }], concurrency: 2, wait: true }),
    );
    expect(run.status).toBe('success');
    const [batch] = await getDb().select().from(schema.batches).where(eq(schema.batches.parentRunId, run.id));
    expect(batch).toMatchObject({ origin: 'tool', notify: 'wait', status: 'completed' });
    const { messages } = await readThread(conversation.id);
    const tool = messages.find((m) => m.getType() === 'tool')!;
    expect(JSON.parse(contentText(tool.content))).toMatchObject({ batchId: batch!.id, status: 'completed', counts: { done: 2, failed: 0 } });
    // A model-written template is data to the scripted model: the worker ran its owner's instructions, not the template.
    expect((await itemRows(batch!.id)).map((i) => i.result)).toEqual(['ok', 'ok']);
  });

  it('no wait: the run goes on, and the conversation gets exactly one message when the batch ends', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id, { name: 'Worker', instructions: '/fail broken' });
    const { conversation } = await conversationWith(alice.id, { name: 'Lead', toolGroups: ['batch'] });
    const run = await send(alice.id, conversation.id, batchCall({ agentId: worker.id, template: '{{x}}', columns: ['x'], items: [{ x: '1' }], concurrency: 1, maxAttempts: 1, wait: false }));
    expect(run.status).toBe('success');
    const [batch] = await getDb().select().from(schema.batches).where(eq(schema.batches.parentRunId, run.id));
    await ended(batch!.id);
    const notified = await until(async () => (await batchRow(batch!.id)).notifiedAt, 10_000, 'the end message');
    expect(notified).toBeInstanceOf(Date);
    const runs = await until(async () => {
      const rows = await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversation.id));
      return rows.length === 2 && rows.every((r) => !['pending', 'running'].includes(r.status)) && rows;
    }, 10_000, 'the end message run');
    const end = runs.find((r) => r.id !== run.id)!;
    expect(end.idempotencyKey).toMatch(/^batch-end:/);
    const { messages } = await readThread(conversation.id);
    const summary = messages.filter((m) => m.getType() === 'human').map((m) => contentText(m.content)).at(-1)!;
    expect(summary).toContain('"failed":1');
    expect(summary).toContain('broken');
  });

  it('is not offered to an agent that did not choose the batch group (an empty allowlist included)', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id);
    const { conversation } = await conversationWith(alice.id, { toolGroups: [] });
    await send(alice.id, conversation.id, batchCall({ agentId: worker.id, template: '{{x}}', columns: ['x'], items: [{ x: '1' }], concurrency: 1, wait: true }));
    expect(await getDb().select().from(schema.batches).where(eq(schema.batches.ownerId, alice.id))).toEqual([]);
  });

  it('a large batch does not hold back another owner: Bob’s one item ends while Alice’s 40 slow items are still going', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const a = await makeAgent(alice.id);
    const b = await makeAgent(bob.id);
    const items = Array.from({ length: 40 }, (_, i) => ({ v: String(i) }));
    const { batch: big } = await createBatch(alice.id, { target: { agentId: a.id }, template: '/sleep 150\n/reply {{v}}', columns: ['v'], items, concurrency: 8 }, { origin: 'person' });
    await until(async () => (await itemRows(big.id)).some((i) => i.status === 'running'), 5_000, 'alice to start');
    const { batch: small } = await createBatch(bob.id, { target: { agentId: b.id }, template: '/reply {{v}}', columns: ['v'], items: [{ v: 'hi' }], concurrency: 1 }, { origin: 'person' });
    await ended(small.id, 10_000);
    const aliceDone = (await itemRows(big.id)).filter((i) => i.status === 'done').length;
    // What must not happen: Bob waiting for Alice's whole batch.
    expect(aliceDone).toBeLessThan(40);
    // Alice's own chat is not held back either: a direct conversation run holds no scheduler slot.
    const { conversation } = await conversationWith(alice.id);
    const chat = await send(alice.id, conversation.id, '/reply still here');
    expect(chat.status).toBe('success');
    expect((await itemRows(big.id)).filter((i) => i.status === 'done').length).toBeLessThan(40);
    await cancelBatch(alice.id, big.id);
    // No item is left running or queued, and none was run twice.
    const rows = await itemRows(big.id);
    expect(rows.filter((r) => r.status === 'queued' || r.status === 'running')).toEqual([]);
    expect(rows.every((r) => r.attempts <= 1)).toBe(true);
  });
});
