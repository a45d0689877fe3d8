import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as cancelRoute from '@/app/api/v1/runs/[id]/cancel/route';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import { cancelRun, ConversationBusyError, get, getState, isStopping, start } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { conversationWith, finished } from './helpers';

const gate = registerGateTool();
const key = () => crypto.randomUUID();
const runsOf = async (conversationId: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId)));

describe('cancel waits for the run to really stop', () => {
  it('keeps the conversation busy while a cancelled run is still executing, then continues one thread', async () => {
    gate.close();
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Holder', toolGroups: [GATE_GROUP] });
    const first = await start(alice.id, conversation.id, { text: '/call hold {}\n/reply first done' }, { idempotencyKey: key() });
    await until(async () => gate.entered === 1, 5_000, 'the tool call to start');

    // The cancel is asked for, but the tool ignores the abort: the run is still executing, so it stays running.
    const afterCancel = await cancelRun(first.run.id, { waitMs: 50 });
    expect(afterCancel.status).toBe('running');
    expect(gate.executing).toBe(1);

    // What must not happen: a second run starting on the same thread beside the one still executing.
    await expect(start(alice.id, conversation.id, { text: '/reply too early' }, { idempotencyKey: key() })).rejects.toThrow(ConversationBusyError);
    const busy = await call(messagesRoute.POST, { method: 'POST', headers: alice.auth, params: { id: conversation.id }, body: { text: 'too early' } });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ error: { code: 'conversation_busy' } });
    expect(await runsOf(conversation.id)).toHaveLength(1);

    // Once the tool returns, the run has really stopped and is recorded as cancelled.
    gate.open();
    const stopped = await finished(first.run.id);
    expect(stopped.status).toBe('cancelled');
    expect(gate.executing).toBe(0);

    const second = await start(alice.id, conversation.id, { text: '/reply second done' }, { idempotencyKey: key() });
    expect((await finished(second.run.id)).status).toBe('success');

    // One consistent thread: both human turns in order, the second run's answer last, no message twice.
    const { threadMessages, messages } = await getState(alice.id, conversation.id);
    expect(threadMessages.filter((m) => m.getType() === 'human').map((m) => m.id)).toEqual([`run:${first.run.id}`, `run:${second.run.id}`]);
    const ids = threadMessages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'second done' });
    expect(messages.some((m) => m.text === 'first done')).toBe(false);
  });

  it('the cancel route answers with the run still running while it stops, and cancelled once it has', async () => {
    gate.close();
    const alice = await makeUser('alice2');
    const { conversation } = await conversationWith(alice.id, { name: 'Holder2', toolGroups: [GATE_GROUP] });
    const { run } = await start(alice.id, conversation.id, { text: '/call hold {}' }, { idempotencyKey: key() });
    await until(async () => gate.executing === 1, 5_000, 'the tool call to start');
    // The route waits (bounded) for the run to stop; the tool is released while it waits.
    const pending = call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: run.id } });
    // Released only once the route has asked the run to stop (else the tool may return first and the run succeed).
    await until(async () => isStopping(run.id), 5_000, 'the cancel to reach the run');
    expect((await get(alice.id, run.id)).status).toBe('running');
    gate.open();
    const answered = await pending;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ run: { id: run.id, status: 'cancelled', stopReason: null } });
    expect(gate.executing).toBe(0);
  });
});
