import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { RunnableConfig } from '@langchain/core/runnables';
import { getCheckpointer } from '@/server/agents/checkpointer';
import { recoverRuns } from '@/server/agents/recovery';
import { findRun, start, wait } from '@/server/agents/runs';
import { activeRuns } from '@/server/agents/run-events';
import { readThread } from '@/server/agents/thread';
import { schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';
import { conversationWith } from '../agents/helpers';
import { until } from '../support/wait';

/**
 * The process dies after a step's task finished and LangGraph saved its writes, but before the checkpoint that
 * applies them was written. Recovery must continue (apply the saved writes) rather than record the run as finished
 * with the task's output missing, and must not run the task again.
 */
describe('recovery after a crash between a task’s writes and the next checkpoint', () => {
  it('continues the run: the saved model answer is applied once, not lost and not regenerated', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Scribe' });
    const saver = getCheckpointer();
    const put = saver.put.bind(saver);
    let puts = 0;
    // Checkpoints of a one-turn run: input (step -1), input applied (step 0), model output applied (step 1).
    saver.put = (config: RunnableConfig, ...rest: Parameters<typeof put> extends [unknown, ...infer R] ? R : never) => {
      if (config.configurable?.thread_id === conversation.id && ++puts === 3) return Promise.reject(new Error('killed before the checkpoint'));
      return put(config, ...rest);
    };
    const { run } = await start(alice.id, conversation.id, { text: '/reply written once' }, { idempotencyKey: crypto.randomUUID() });
    const failed = await wait(run.id, 10_000);
    saver.put = put;
    expect(failed?.status).toBe('error');
    await until(async () => !activeRuns().has(run.id), 5_000, 'the execution to settle');
    const pending = (await saver.getTuple({ configurable: { thread_id: conversation.id } }))!.pendingWrites!;
    const saved = pending.find(([, channel]) => channel === 'messages')![2] as Array<{ id: string; content: string }>;
    expect(saved.map((m) => m.content)).toEqual(['written once']);
    expect((await readThread(conversation.id)).messages.map((m) => m.getType())).toEqual(['human']);

    // What a crash leaves behind: the row still says running.
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', error: null, finishedAt: null }).where(eq(schema.runs.id, run.id)));
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', '/reply written once'],
      ['ai', 'written once'],
    ]);
    expect(messages[1]!.id).toBe(saved[0]!.id);
    expect((await findRun(run.id))!.error).toBeNull();
  });

  it('records a step that failed before the crash as the run’s error instead of running it again', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Flaky' });
    const { run } = await start(alice.id, conversation.id, { text: '/fail provider said no' }, { idempotencyKey: crypto.randomUUID() });
    expect((await wait(run.id, 10_000))?.status).toBe('error');
    await until(async () => !activeRuns().has(run.id), 5_000, 'the execution to settle');
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', error: null, finishedAt: null }).where(eq(schema.runs.id, run.id)));
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'recorded', status: 'error' }]);
    expect(await findRun(run.id)).toMatchObject({ status: 'error', error: 'provider said no' });
  });
});
