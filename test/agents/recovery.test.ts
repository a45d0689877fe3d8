import crypto from 'node:crypto';
import { tool } from '@langchain/core/tools';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { recoverRuns } from '@/server/agents/recovery';
import { activeRuns } from '@/server/agents/run-events';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { getState, runEvents, start } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import { insertRun } from '../support/runs';
import { makeUser } from '../support/users';
import { conversationWith, finished, send, until } from './helpers';

/** What a crash leaves behind: the row says 'running' whatever the thread holds. */
async function crashAsRunning(runId: string) {
  await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', finishedAt: null, error: null, interrupt: null }).where(eq(schema.runs.id, runId)));
  closeCheckpointer();
  await closeDb();
}

const runCount = async (conversationId: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId))).length;

describe('recoverRuns at start-up', () => {
  it('executes a run whose input never reached the thread, with the stored input and no second row', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Late' });
    const run = await insertRun({ conversationId: conversation.id, ownerId: alice.id, kind: 'start', status: 'running', input: { text: 'left behind' } });
    expect((await readThread(conversation.id)).messages).toEqual([]);

    const report = await recoverRuns();
    expect(report).toEqual([{ runId: run.id, action: 'executed' }]);
    const done = await finished(run.id);
    expect(done.status).toBe('success');
    const { messages, threadMessages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => m.text)).toEqual(['left behind', 'Late received: left behind']);
    expect(threadMessages[0]!.id).toBe(`run:${run.id}`);
    expect(await runCount(conversation.id)).toBe(1);
  });

  it('records a run that had finished but whose row still says running, without running anything again', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'] });
    const run = await send(alice.id, conversation.id, '/call calculator {"expression":"3*3"}');
    const before = (await readThread(conversation.id)).checkpointId;
    await crashAsRunning(run.id);

    const finishedEvents: string[] = [];
    const listener = (e: { runId: string; status: string }) => finishedEvents.push(`${e.runId}:${e.status}`);
    runEvents().on('run:finished', listener);
    const report = await recoverRuns();
    runEvents().off('run:finished', listener);

    expect(report).toEqual([{ runId: run.id, action: 'recorded', status: 'success' }]);
    expect(finishedEvents).toEqual([`${run.id}:success`]);
    expect((await readThread(conversation.id)).checkpointId).toBe(before);
    const state = await getState(alice.id, conversation.id);
    expect(state.run).toMatchObject({ id: run.id, status: 'success' });
    expect(state.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('records an approval interrupt that was checkpointed before the crash', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const run = await send(alice.id, conversation.id, '/call calculator {"expression":"5"}');
    expect(run.status).toBe('interrupted');
    await crashAsRunning(run.id);
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'recorded', status: 'interrupted' }]);
    expect((await getState(alice.id, conversation.id)).run).toMatchObject({
      status: 'interrupted',
      interrupt: { type: 'approval', tool: 'calculator', args: { expression: '5' } },
    });
  });

  it('records a clarification that ended the turn before the crash', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['clarify'] });
    const run = await send(alice.id, conversation.id, '/ask Morning or evening?');
    await crashAsRunning(run.id);
    await recoverRuns();
    expect((await getState(alice.id, conversation.id)).run).toMatchObject({
      status: 'interrupted',
      interrupt: { type: 'clarification', question: 'Morning or evening?' },
    });
  });

  it('continues a graph that stopped mid-way from its last checkpoint', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    registerToolGroup('test_slow', () => [
      tool(
        async () => {
          calls++;
          await gate;
          return 'slow done';
        },
        { name: 'slow_tool', description: 'waits for the test', schema: z.object({}) },
      ),
    ]);
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Worker', toolGroups: ['test_slow'] });
    const { run } = await start(alice.id, conversation.id, { text: '/call slow_tool {}' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => calls === 1);
    // Stop the process's work mid-tool as a shutdown does: aborted, nothing recorded. The tool holds on, so the
    // execution settles only after it returns; then the row is left as a dead process would leave it.
    const report = await suspendActiveRuns(50);
    expect(report).toEqual({ suspended: [run.id], settled: false });
    const stuck = await readThread(conversation.id);
    expect(stuck.messages.map((m) => m.getType())).toEqual(['human', 'ai']);

    release();
    await until(async () => !activeRuns().has(run.id));
    resumeRunLaunches();
    await crashAsRunning(run.id);
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await finished(run.id)).status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', '/call slow_tool {}'],
      ['assistant', ''],
      ['tool', 'slow done'],
      ['assistant', 'Worker: done\n[slow_tool] slow done'],
    ]);
    expect(await runCount(conversation.id)).toBe(1);
  });

  it('executes a resume whose answer never reached the thread', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { name: 'Gate', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(alice.id, conversation.id, '/call calculator {"expression":"8*8"}');
    const { checkpointId } = await readThread(conversation.id);
    const resumeRow = await insertRun({ conversationId: conversation.id, ownerId: alice.id, kind: 'resume', input: { value: { approved: true }, checkpointId } });
    closeCheckpointer();
    await closeDb();
    expect(await recoverRuns()).toEqual([{ runId: resumeRow.id, action: 'executed' }]);
    expect((await finished(resumeRow.id)).status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual(['64']);
    expect(messages.at(-1)!.text).toBe('Gate: done\n[calculator] 64');
  });

  it('fails a leftover run whose agent is gone, with a message', async () => {
    const alice = await makeUser('alice');
    const { agent, conversation } = await conversationWith(alice.id);
    const run = await insertRun({ conversationId: conversation.id, ownerId: alice.id, kind: 'start', input: { text: 'orphan' } });
    await writeTx((tx) => tx.delete(schema.agents).where(eq(schema.agents.id, agent.id)));
    await recoverRuns();
    expect(await finished(run.id)).toMatchObject({ status: 'error', error: 'The agent of this conversation was deleted' });
  });
});
