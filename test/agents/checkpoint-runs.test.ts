import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { closeCheckpointer, getCheckpointer, maintainSettledThread, readCheckpointStore } from '@/server/agents/checkpointer';
import { recoverRuns } from '@/server/agents/recovery';
import { activeRuns } from '@/server/agents/run-events';
import { findRun, resume, start, wait } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { closeDb, schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { conversationWith, finished, send } from './helpers';

// The product path (runs service, agent graph, scripted model) on the thread saver: what a person relies on —
// history, approvals, recovery after a crash — holds, and settled threads are trimmed to what they still need.

const serde = new JsonPlusSerializer();
const serialized = async (messages: BaseMessage[]) => new TextDecoder().decode((await serde.dumpsTyped(messages))[1]);
const saver = () => getCheckpointer();
/** The library's tables on Postgres that hold what ThreadSaver's tables hold on SQLite. */
const PG_TABLES = { thread_checkpoints: 'checkpoints', thread_writes: 'checkpoint_writes', thread_messages: 'thread_messages' };
const rows = (table: keyof typeof PG_TABLES, thread: string) =>
  readCheckpointStore(
    (db) => (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ?`).get(thread) as { n: number }).n,
    async (s) => Number((await s.pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${s.schema}".${PG_TABLES[table]} WHERE thread_id = $1`, [thread])).rows[0]!.n),
  );
const crashAsRunning = async (runId: string) =>
  await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', error: null, finishedAt: null }).where(eq(schema.runs.id, runId)));

describe('conversations on the thread saver', () => {
  it('a long conversation with tool calls reloads identically after a restart, each message stored once', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Ledger', toolGroups: ['utility'] });
    const sent: string[] = [];
    for (let i = 1; i <= 30; i++) {
      const text = i % 3 === 0 ? `Exchange ${i}: add it up\n/call calculator {"expression":"${i} * 3"}` : `Exchange ${i}: ${'words '.repeat(40)}`;
      sent.push(text);
      expect((await send(alice.id, conversation.id, text)).status).toBe('success');
    }
    await until(async () => (await rows('thread_checkpoints', conversation.id)) === 1, 5_000, 'the settled thread to be pruned');
    const before = (await readThread(conversation.id)).messages;

    closeCheckpointer();
    await closeDb();
    const after = (await readThread(conversation.id)).messages;
    expect(await serialized(after)).toBe(await serialized(before));
    expect(after.filter((m) => m.getType() === 'human').map((m) => m.content)).toEqual(sent);
    expect(new Set(after.map((m) => m.id)).size).toBe(after.length);
    // 20 plain exchanges (human + answer), 10 with a tool call (human + call + result + answer).
    expect(after.length).toBe(20 * 2 + 10 * 4);
    for (const [i, m] of after.entries()) {
      for (const call of (m as AIMessage).tool_calls ?? []) {
        expect(after[i + 1]).toMatchObject({ tool_call_id: call.id, name: 'calculator' });
      }
    }
    expect(await rows('thread_messages', conversation.id)).toBe(after.length);
  }, 60_000);

  it('an approval interrupt survives pruning and a restart, and the resumed run keeps the history', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(alice.id, conversation.id, 'first, no tools');
    await send(alice.id, conversation.id, 'second, no tools');
    const waiting = await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    expect(waiting.status).toBe('interrupted');
    // The interrupted run is settled: its thread is trimmed to the one checkpoint the interrupt waits in.
    await until(async () => (await rows('thread_checkpoints', conversation.id)) === 1, 5_000, 'the interrupted thread to be pruned');
    expect(await rows('thread_writes', conversation.id)).toBeGreaterThan(0);

    closeCheckpointer();
    await closeDb();
    const { run } = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: crypto.randomUUID() });
    expect((await finished(run.id)).status).toBe('success');
    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', 'first, no tools'],
      ['ai', 'Careful received: first, no tools'],
      ['human', 'second, no tools'],
      ['ai', 'Careful received: second, no tools'],
      ['human', '/call calculator {"expression":"6*7"}'],
      ['ai', ''],
      ['tool', '42'],
      ['ai', 'Careful: done\n[calculator] 42'],
    ]);
  });

  it('never prunes while a run of the conversation is running or left running by a crash', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Slow' });
    await send(alice.id, conversation.id, 'settled one');
    await until(async () => (await rows('thread_checkpoints', conversation.id)) === 1, 5_000, 'the settled thread to be pruned');

    const { run } = await start(alice.id, conversation.id, { text: '/sleep 500\n/reply slow answer' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => (await readThread(conversation.id)).messages.length === 3, 5_000, 'the run’s input to be checkpointed');
    const during = await rows('thread_checkpoints', conversation.id);
    expect(during).toBeGreaterThan(1);
    await maintainSettledThread(conversation.id);
    expect(await rows('thread_checkpoints', conversation.id)).toBe(during);
    expect((await finished(run.id)).status).toBe('success');
    await until(async () => (await rows('thread_checkpoints', conversation.id)) === 1, 5_000, 'the thread to be pruned once the run settled');

    // A row a dead process left running, with a step it checkpointed: nothing is trimmed until recovery decided it.
    await crashAsRunning(run.id);
    const latest = (await saver().getTuple({ configurable: { thread_id: conversation.id } }))!;
    await saver().put(latest.config, { ...latest.checkpoint, id: '1fffffff-0000-6000-8000-000000000000' }, { source: 'loop', step: 100, parents: {} }, {});
    await maintainSettledThread(conversation.id);
    expect(await rows('thread_checkpoints', conversation.id)).toBe(2);
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'success' }).where(eq(schema.runs.id, run.id)));
    await maintainSettledThread(conversation.id);
    expect(await rows('thread_checkpoints', conversation.id)).toBe(1);
  });

  it('a crash after a step’s writes but before its checkpoint recovers once the thread was pruned in between', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Scribe' });
    await send(alice.id, conversation.id, 'earlier exchange');
    const s = saver();
    const put = s.put.bind(s);
    let puts = 0;
    // Checkpoints of a one-turn run: input (step -1), input applied (step 0), model output applied (step 1).
    s.put = (config: RunnableConfig, ...rest: Parameters<typeof put> extends [unknown, ...infer R] ? R : never) => {
      if (config.configurable?.thread_id === conversation.id && ++puts === 3) return Promise.reject(new Error('killed before the checkpoint'));
      return put(config, ...rest);
    };
    const { run } = await start(alice.id, conversation.id, { text: '/reply written once' }, { idempotencyKey: crypto.randomUUID() });
    expect((await wait(run.id, 10_000))?.status).toBe('error');
    s.put = put;
    await until(async () => !activeRuns().has(run.id), 5_000, 'the execution to settle');
    // The error settled the run, so the thread was trimmed: only the checkpoint holding the saved model answer is left.
    await until(async () => (await rows('thread_checkpoints', conversation.id)) === 1, 5_000, 'the thread to be pruned');
    const pending = (await s.getTuple({ configurable: { thread_id: conversation.id } }))!.pendingWrites!;
    expect(pending.some(([, channel]) => channel === 'messages')).toBe(true);

    await crashAsRunning(run.id);
    closeCheckpointer();
    await closeDb();
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', 'earlier exchange'],
      ['ai', 'Scribe received: earlier exchange'],
      ['human', '/reply written once'],
      ['ai', 'written once'],
    ]);
    expect((await findRun(run.id))!.error).toBeNull();
  });

  it('a crash after a checkpoint but before the step’s writes redoes the step: one answer, consistent thread', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Redo' });
    const s = saver();
    const putWrites = s.putWrites.bind(s);
    let failed = false;
    s.putWrites = (config, writes, taskId, taskPath) => {
      if (!failed && config.configurable?.thread_id === conversation.id && writes.some(([channel]) => channel === 'messages') && taskPath !== '') {
        failed = true;
        return Promise.reject(new Error('killed before the writes'));
      }
      return putWrites(config, writes, taskId, taskPath);
    };
    const { run } = await start(alice.id, conversation.id, { text: '/reply only once' }, { idempotencyKey: crypto.randomUUID() });
    expect((await wait(run.id, 10_000))?.status).toBe('error');
    s.putWrites = putWrites;
    expect(failed).toBe(true);
    await until(async () => !activeRuns().has(run.id), 5_000, 'the execution to settle');
    // The step-0 checkpoint (the input applied) may still be on its way when the scripted task's writes fail at once:
    // on Postgres its commit, on SQLite its serialization (seen on a loaded two-core machine). When the run stops
    // first, the crash falls before that checkpoint and recovery redoes from the input. Either way: one answer,
    // consistent thread.
    const saved = (await readThread(conversation.id)).messages.map((m) => m.getType());
    expect([[], ['human']]).toContainEqual(saved);

    await crashAsRunning(run.id);
    closeCheckpointer();
    await closeDb();
    // From the step-0 checkpoint when it was saved, from the run's input when the crash fell before it (read again
    // now, since that put may have landed after the read above, before the database closed).
    const applied = (await readThread(conversation.id)).messages.length > 0;
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: applied ? 'continued' : 'executed' }]);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', '/reply only once'],
      ['ai', 'only once'],
    ]);
  });
});
