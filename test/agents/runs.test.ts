import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { listConversations, createConversation } from '@/server/agents/conversations';
import { readThread } from '@/server/agents/thread';
import {
  ConversationBusyError,
  cancel,
  get,
  getState,
  resume,
  runEvents,
  start,
  wait,
  type RunEvent,
} from '@/server/agents/runs';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';
import { conversationWith, finished, makeAgent, send, until } from './helpers';

const key = () => crypto.randomUUID();

async function runRows(conversationId: string) {
  return (await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId)));
}

/** Resolves when the conversation's next run starts executing (its status is 'running'). */
function nextStart(conversationId: string): Promise<void> {
  return new Promise((resolve) => {
    const onStart = (e: RunEvent) => {
      if (e.conversationId !== conversationId) return;
      runEvents().off('run:started', onStart);
      resolve();
    };
    runEvents().on('run:started', onStart);
  });
}

describe('runs service', () => {
  it('start is idempotent: the same key gives the same run and one human message', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Once' });
    const k = key();
    const first = await start(alice.id, conversation.id, { text: 'hello' }, { idempotencyKey: k });
    const again = await start(alice.id, conversation.id, { text: 'hello' }, { idempotencyKey: k });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, run: { id: first.run.id } });
    await finished(first.run.id);
    const afterFinish = await start(alice.id, conversation.id, { text: 'a different text' }, { idempotencyKey: k });
    expect(afterFinish).toMatchObject({ created: false, run: { id: first.run.id, status: 'success' } });

    expect(await runRows(conversation.id)).toHaveLength(1);
    const { threadMessages, messages } = await getState(alice.id, conversation.id);
    expect(threadMessages.filter((m) => m.getType() === 'human').map((m) => m.id)).toEqual([`run:${first.run.id}`]);
    expect(messages.map((m) => m.text)).toEqual(['hello', 'Once received: hello']);
    expect(first.run).toMatchObject({ kind: 'start', model: 'scripted', ownerId: alice.id });
  });

  it('refuses a second run while one is active (ConversationBusyError, 409)', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const slow = await start(alice.id, conversation.id, { text: '/sleep 5000' }, { idempotencyKey: key() });
    let error: unknown;
    try {
      await start(alice.id, conversation.id, { text: 'me too' }, { idempotencyKey: key() });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConversationBusyError);
    expect(error).toMatchObject({ status: 409, code: 'conversation_busy' });
    // The same key as the active run is not "busy": it finds the run.
    expect((await start(alice.id, conversation.id, { text: '/sleep 5000' }, { idempotencyKey: slow.run.idempotencyKey })).run.id).toBe(slow.run.id);
    await cancel(alice.id, slow.run.id);
    expect(await runRows(conversation.id)).toHaveLength(1);
  });

  it('cancel stops a /sleep 5000 run promptly, keeps its checkpoints, and the conversation continues', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Sleeper' });
    const running = nextStart(conversation.id);
    const { run } = await start(alice.id, conversation.id, { text: 'wait\n/sleep 5000' }, { idempotencyKey: key() });
    await running;
    expect((await get(alice.id, run.id)).status).toBe('running');
    // The model is asleep once the input checkpoint exists.
    await until(async () => (await readThread(conversation.id)).messages.length === 1);
    const began = Date.now();
    const cancelled = await cancel(alice.id, run.id);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.finishedAt).not.toBeNull();
    expect((await wait(run.id, 1_000))!.status).toBe('cancelled');

    const thread = await readThread(conversation.id);
    expect(thread.messages.map((m) => m.id)).toEqual([`run:${run.id}`]);

    // Cancelling again answers the same finished run.
    const again = await cancel(alice.id, run.id);
    expect(again).toMatchObject({ status: 'cancelled', finishedAt: cancelled.finishedAt });

    const next = await send(alice.id, conversation.id, 'are you awake?');
    expect(next.status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'wait\n/sleep 5000'],
      ['user', 'are you awake?'],
      ['assistant', 'Sleeper received: are you awake?'],
    ]);
  });

  it('cancel on a finished run returns it unchanged', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const done = await send(alice.id, conversation.id, 'hi');
    const after = await cancel(alice.id, done.id);
    expect(after).toEqual(done);
  });

  it('emits run:started and run:finished, and wait() returns the unfinished run on timeout', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const seen: RunEvent[] = [];
    const listener = (e: RunEvent) => seen.push(e);
    runEvents().on('run:finished', listener);
    try {
      const { run } = await start(alice.id, conversation.id, { text: '/sleep 3000' }, { idempotencyKey: key() });
      const early = await wait(run.id, 50);
      expect(early!.status).toMatch(/^(pending|running)$/);
      await cancel(alice.id, run.id);
      const ok = await send(alice.id, conversation.id, 'fine');
      expect(seen.filter((e) => e.conversationId === conversation.id)).toEqual([
        { runId: run.id, conversationId: conversation.id, ownerId: alice.id, status: 'cancelled', teamId: null },
        { runId: ok.id, conversationId: conversation.id, ownerId: alice.id, status: 'success', teamId: null },
      ]);
    } finally {
      runEvents().off('run:finished', listener);
    }
  });

  it('touches conversations.updatedAt when a run ends and sets the title from the first message', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, 'Quarterly report\nwith details');
    const { conversation: after } = await getState(alice.id, conversation.id);
    expect(after.updatedAt.getTime()).toBe(run.finishedAt!.getTime());
    expect(after.title).toBe('Quarterly report');
  });

  it('a conversation whose agent was deleted stays readable but takes no new runs', async () => {
    const alice = await makeUser('alice');
    const { agent, conversation } = await conversationWith(alice.id);
    await send(alice.id, conversation.id, 'before');
    await writeTx((tx) => tx.delete(schema.agents).where(eq(schema.agents.id, agent.id)));
    await expect(start(alice.id, conversation.id, { text: 'after' }, { idempotencyKey: key() })).rejects.toThrow(
      expect.objectContaining({ status: 409, code: 'agent_deleted' }),
    );
    const state = await getState(alice.id, conversation.id);
    expect(state.conversation.agentId).toBeNull();
    expect(state.messages).toHaveLength(2);
  });
});

describe('approval interrupts', () => {
  it('interrupt before the tool, resume after a process-like reopen, approved → the tool runs', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
    const waiting = await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    expect(waiting.status).toBe('interrupted');
    expect(waiting.interrupt).toEqual({ type: 'approval', tool: 'calculator', args: { expression: '6*7' } });
    const before = await getState(alice.id, conversation.id);
    expect(before.interrupt).toEqual(waiting.interrupt);
    expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant']);

    // A new process: every singleton closed and reopened from disk.
    closeCheckpointer();
    await closeDb();

    const resumeKey = key();
    const resumed = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: resumeKey });
    expect(resumed.created).toBe(true);
    expect(resumed.run.kind).toBe('resume');
    const done = await finished(resumed.run.id);
    expect(done.status).toBe('success');
    const { messages, interrupt } = await getState(alice.id, conversation.id);
    expect(interrupt).toBeNull();
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', '/call calculator {"expression":"6*7"}'],
      ['assistant', ''],
      ['tool', '42'],
      ['assistant', 'Careful: done\n[calculator] 42'],
    ]);
    // Same key again: the same run, nothing new executes.
    const again = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: resumeKey });
    expect(again).toMatchObject({ created: false, run: { id: resumed.run.id } });
    expect(await runRows(conversation.id)).toHaveLength(2);
  });

  it('declined → a tool message says so (with the note) and the tool never runs', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    closeCheckpointer();
    await closeDb();
    const { run } = await resume(alice.id, conversation.id, { approved: false, note: 'not today' }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    const declined = 'The person declined this calculator call, so it was not run. Their note: not today';
    expect(messages[2]).toMatchObject({ role: 'tool', toolName: 'calculator', text: declined });
    expect(messages[3]!.text).toBe(`Careful: done\n[calculator] ${declined}`);
    expect(messages.some((m) => m.text === '42')).toBe(false);
  });

  it('two guarded calls interrupt one after the other', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], approvalTools: ['calculator', 'current_time'] });
    await send(alice.id, conversation.id, '/call calculator {"expression":"1+2"}\n/call current_time {}');
    const first = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: key() });
    const second = await finished(first.run.id);
    expect(second).toMatchObject({ status: 'interrupted', interrupt: { type: 'approval', tool: 'current_time', args: {} } });
    const last = await resume(alice.id, conversation.id, { approved: false }, { idempotencyKey: key() });
    expect((await finished(last.run.id)).status).toBe('success');
    const tools = (await getState(alice.id, conversation.id)).messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(tools).toEqual(['3', 'The person declined this current_time call, so it was not run.']);
  });

  it('resume answers 409 when nothing waits, and 422 naming value fields for a malformed approval', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
    await expect(resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: key() })).rejects.toMatchObject({ status: 409, code: 'not_waiting' });
    // A clarification is answered with a message, not a resume.
    await send(alice.id, conversation.id, '/ask Which one?');
    await expect(resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: key() })).rejects.toMatchObject({ status: 409 });

    await send(alice.id, conversation.id, '/call calculator {"expression":"1"}');
    await expect(resume(alice.id, conversation.id, { yes: 1 }, { idempotencyKey: key() })).rejects.toMatchObject({
      status: 422,
      fields: { 'value.approved': expect.any(String), 'value.yes': 'Unknown field' },
    });
    await expect(resume(alice.id, conversation.id, 'yes', { idempotencyKey: key() })).rejects.toMatchObject({ status: 422, fields: { value: expect.any(String) } });
    expect((await runRows(conversation.id)).filter((r) => r.kind === 'resume')).toHaveLength(0);
  });
});

describe('owner isolation', () => {
  it("another user can't create on, list, read, message, resume or cancel someone else's conversations and runs", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { agent, conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const waiting = await send(alice.id, conversation.id, '/call calculator {"expression":"2"}');
    expect(waiting.status).toBe('interrupted');

    await expect(createConversation(bob.id, agent.id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    expect(await listConversations(bob.id)).toEqual([]);
    expect((await listConversations(alice.id)).map((c) => c.id)).toEqual([conversation.id]);
    await expect(get(bob.id, waiting.id)).rejects.toThrow(expect.objectContaining({ status: 404, message: 'Run not found' }));
    await expect(getState(bob.id, conversation.id)).rejects.toMatchObject({ status: 404, message: 'Conversation not found' });
    await expect(start(bob.id, conversation.id, { text: 'hi' }, { idempotencyKey: key() })).rejects.toThrow(expect.objectContaining({ status: 404 }));
    await expect(resume(bob.id, conversation.id, { approved: true }, { idempotencyKey: key() })).rejects.toMatchObject({ status: 404 });
    await expect(cancel(bob.id, waiting.id)).rejects.toMatchObject({ status: 404 });

    // Nothing of Alice's changed.
    expect(await runRows(conversation.id)).toHaveLength(1);
    expect(await get(alice.id, waiting.id)).toEqual(waiting);
    const bobAgent = await makeAgent(bob.id);
    expect((await createConversation(bob.id, bobAgent.id)).ownerId).toBe(bob.id);
    expect((await listConversations(alice.id)).map((c) => c.id)).toEqual([conversation.id]);
  });
});
