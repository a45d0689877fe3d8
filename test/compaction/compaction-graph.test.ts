import crypto from 'node:crypto';
import { AIMessage, SystemMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { compactionsOf } from '@/server/agents/compaction/store';
import { contentText } from '@/server/agents/messages';
import { recoverRuns } from '@/server/agents/recovery';
import { start } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, finished, send, until } from '../agents/helpers';
import { eventsOf, ofType, typesOf } from '../observe/helpers';
import { ECHO_GROUP, filler, recordModelCalls, registerEchoTool } from './helpers';

registerEchoTool();
let recorder: ReturnType<typeof recordModelCalls> | undefined;
afterEach(async () => recorder?.restore());

/** Every tool result in a model input comes after the assistant message that made its call. */
function everyResultHasItsCall(input: readonly BaseMessage[]): boolean {
  const called = new Set<string>();
  for (const m of input) {
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) if (c.id) called.add(c.id);
    if (m.getType() === 'tool' && !called.has((m as ToolMessage).tool_call_id)) return false;
  }
  return true;
}

describe('compaction through real graphs', () => {
  it('a cut that lands on a tool result moves back to its call: the model never receives a result without its call', async () => {
    const dee = await makeUser('dee');
    const { conversation } = await conversationWith(dee.id, { name: 'Pairs', compactAtTokens: 1_000, toolGroups: [ECHO_GROUP] });
    await send(dee.id, conversation.id, 'hi');
    recorder = recordModelCalls();
    const run = await send(dee.id, conversation.id, `/call echo {"text":"${filler(700)}"}`);
    expect(run.status).toBe('success');
    const thread = (await readThread(conversation.id)).messages;
    // hi, answer, the request, the call, its result, the final answer: all kept in the thread.
    expect(thread.map((m) => m.getType())).toEqual(['human', 'ai', 'human', 'ai', 'tool', 'ai']);
    const inputs = recorder.agentCalls();
    expect(inputs).toHaveLength(2);
    expect(inputs.every(everyResultHasItsCall)).toBe(true);
    // The 704-token result alone is more than the 500 kept: the cut moved back to the call that asked for it.
    const compacted = inputs[1]!;
    expect(compacted[0]).toBeInstanceOf(SystemMessage);
    expect(compacted[1]!.additional_kwargs.ensemble).toMatchObject({ kind: 'compaction' });
    expect(compacted.slice(2).map((m) => m.id)).toEqual([thread[3]!.id, thread[4]!.id]);
    const [compaction] = ofType(await eventsOf(run.id), 'compaction');
    expect(compaction!.removed.map((r) => r.id)).toEqual(thread.slice(0, 3).map((m) => m.id));
    // The scripted model reads its turn from the newest human message; the request itself was summarized, so it
    // answers as for a turn without directives.
    expect(contentText(thread[5]!.content)).toBe('Pairs received: Summary of 3 earlier messages:');
  });

  it('a compaction record is saved with its step: lost with a step that never finished, made once when it is redone', async () => {
    const eve = await makeUser('eve');
    const { conversation } = await conversationWith(eve.id, { name: 'Durable', compactAtTokens: 1_000 });
    await send(eve.id, conversation.id, filler(400));
    recorder = recordModelCalls();
    // The model call after the compaction sleeps: the process is stopped in the middle of that step.
    const { run } = await start(eve.id, conversation.id, { text: `${filler(500)}\n/sleep 1500\n/reply ok` }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => recorder!.agentCalls().length === 1, 10_000);
    expect(recorder.calls.map((c) => c.system)).toEqual(['summary', undefined]);
    // Summarized and queued with the step, not written before it.
    expect(await compactionsOf(conversation.id)).toEqual([]);
    expect(typesOf(await eventsOf(run.id))).not.toContain('compaction');

    expect(await suspendActiveRuns(5_000)).toEqual({ suspended: [run.id], settled: true });
    expect(await compactionsOf(conversation.id)).toEqual([]);
    expect(typesOf(await eventsOf(run.id))).not.toContain('compaction');

    resumeRunLaunches();
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await finished(run.id, 15_000)).status).toBe('success');
    const records = await compactionsOf(conversation.id);
    expect(records).toHaveLength(1);
    expect(ofType(await eventsOf(run.id), 'compaction').map((e) => e.summaryMessageId)).toEqual([records[0]!.summaryMessageId]);
    const thread = (await readThread(conversation.id)).messages;
    expect(records[0]!.throughMessageId).toBe(thread[1]!.id);
    expect(contentText(thread.at(-1)!.content)).toBe('ok');
  });
});
