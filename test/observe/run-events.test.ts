import crypto from 'node:crypto';
import { tool } from '@langchain/core/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recoverRuns } from '@/server/agents/recovery';
import { cancel, findRun, getState, isStopping, resume, start } from '@/server/agents/runs';
import { setRunMinuteMsForTests } from '@/server/agents/run-time-limit';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { schema, writeTx } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { makeUser } from '../support/users';
import { conversationWith, finished, send, until } from '../agents/helpers';
import { eventsOf, expectDense, ofType, typesOf } from './helpers';

const key = () => crypto.randomUUID();
const gate = registerGateTool();

// `echo` returns its text: a tool result as long as a test needs.
registerToolGroup('test_echo', () => [
  tool(({ text }) => text, { name: 'echo', description: 'Returns the text.', schema: z.object({ text: z.string() }) }),
]);

afterEach(async () => setRunMinuteMsForTests(undefined));

/** The token totals a run row holds equal the sums of its model.call events. */
async function expectTotalsFromEvents(run: Run): Promise<void> {
  const calls = ofType(await eventsOf(run.id), 'model.call');
  expect({ inputTokens: run.inputTokens, outputTokens: run.outputTokens, modelCalls: run.modelCalls, unreportedCalls: run.unreportedCalls }).toEqual({
    inputTokens: calls.reduce((n, c) => n + (c.inputTokens ?? 0), 0),
    outputTokens: calls.reduce((n, c) => n + (c.outputTokens ?? 0), 0),
    modelCalls: calls.length,
    unreportedCalls: calls.filter((c) => c.inputTokens === undefined && c.outputTokens === undefined).length,
  });
}

describe('run events through real graphs (scripted model)', () => {
  it('a tool turn and a reply: every step in order with dense seq, tokens as reported, totals from the events', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/reply The answer is 42');
    expect(run.status).toBe('success');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    const [started, call, asked, result, , replied, end] = events;
    expect(started).toMatchObject({ kind: 'start', model: 'scripted', fingerprint: run.fingerprint });
    expect(run.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(call).toMatchObject({ model: 'scripted', inputTokens: expect.any(Number), outputTokens: expect.any(Number), latencyMs: expect.any(Number) });
    expect(call).not.toHaveProperty('error');
    expect(call).not.toHaveProperty('system');
    const thread = await readThread(conversation.id);
    const askedFor = (thread.messages[1] as AIMessage).tool_calls![0]!;
    expect(asked).toEqual(expect.objectContaining({ text: '', toolCalls: [{ id: askedFor.id, name: 'calculator', args: '{"expression":"6*7"}' }] }));
    expect(result).toMatchObject({ toolCallId: askedFor.id, tool: 'calculator', result: '42', status: 'success', durationMs: expect.any(Number) });
    expect(replied).toMatchObject({ text: 'The answer is 42', toolCalls: [] });
    expect(end).toMatchObject({ outcome: 'completed' });
    expect(end).not.toHaveProperty('error');
    expect(run.modelCalls).toBe(2);
    expect(run.inputTokens).toBeGreaterThan(0);
    await expectTotalsFromEvents(run);
  });

  it('approval: the run ends with interrupt and run.finished(interrupted); the resume run records resume, the tool and the reply', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"2+2"}\n/reply four');
    expect(first.status).toBe('interrupted');
    const asked = await eventsOf(first.id);
    expectDense(asked);
    expect(typesOf(asked)).toEqual(['run.started', 'model.call', 'step.assistant', 'interrupt', 'run.finished']);
    expect(asked[3]).toMatchObject({ interrupt: { type: 'approval', tool: 'calculator', args: { expression: '2+2' } } });
    expect(asked[4]).toMatchObject({ outcome: 'interrupted' });

    const { run } = await resume(ann.id, conversation.id, { approved: true }, { idempotencyKey: key() });
    const second = await finished(run.id);
    expect(second.status).toBe('success');
    const resumed = await eventsOf(second.id);
    expectDense(resumed);
    expect(typesOf(resumed)).toEqual(['run.started', 'resume', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    expect(resumed[0]).toMatchObject({ kind: 'resume' });
    expect(resumed[1]).toMatchObject({ value: { approved: true } });
    expect(resumed[2]).toMatchObject({ tool: 'calculator', result: '4', status: 'success' });
    await expectTotalsFromEvents(second);
  });

  it('a declined call: its result (written by the approval step, no tool ran) is a step.tool with status error and duration 0', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(ann.id, conversation.id, '/call calculator {"expression":"2+2"}\n/reply fine');
    const { run } = await resume(ann.id, conversation.id, { approved: false, note: 'no' }, { idempotencyKey: key() });
    const events = await eventsOf((await finished(run.id)).id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'resume', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    const declined = (await readThread(conversation.id)).messages.find((m): m is ToolMessage => m.getType() === 'tool')!;
    expect(events[2]).toMatchObject({ toolCallId: declined.tool_call_id, tool: 'calculator', status: 'error', durationMs: 0, result: declined.content });
    expect(events[2]).toMatchObject({ result: 'The person declined this calculator call, so it was not run. Their note: no', declined: true });
    // The conversation's message says so too, read back from the checkpoint.
    const state = await getState(ann.id, conversation.id);
    expect(state.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'error', declined: true });
  });

  it('clarification: the ask is a tool step, then interrupt with the question and run.finished(interrupted)', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['clarify'] });
    const run = await send(ann.id, conversation.id, '/ask Which colour?');
    expect(run.status).toBe('interrupted');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'interrupt', 'run.finished']);
    expect(events[2]).toMatchObject({ toolCalls: [{ name: 'ask_clarification', args: '{"question":"Which colour?"}' }] });
    expect(events[3]).toMatchObject({ tool: 'ask_clarification', status: 'success' });
    expect(events[4]).toMatchObject({ interrupt: { type: 'clarification', question: 'Which colour?' } });
  });

  it('a failing model call: model.call carries the error and no tokens; run.finished(failed) carries it too', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id);
    const run = await send(ann.id, conversation.id, '/fail provider exploded');
    expect(run.status).toBe('error');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'run.finished']);
    expect(events[1]).toMatchObject({ error: 'provider exploded' });
    expect(events[1]).not.toHaveProperty('inputTokens');
    expect(events[1]).not.toHaveProperty('outputTokens');
    expect(events[2]).toMatchObject({ outcome: 'failed', error: 'provider exploded', stopReason: null });
    expect(run).toMatchObject({ modelCalls: 1, unreportedCalls: 1, inputTokens: 0, outputTokens: 0 });
  });

  it('cancel mid-tool: the step in flight finishes under NodeWork and its events are kept (it ran; it is not redone), then run.finished(cancelled)', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: [GATE_GROUP] });
    gate.close();
    const { run } = await start(ann.id, conversation.id, { text: '/call hold {}\n/reply never' }, { idempotencyKey: key() });
    await until(async () => gate.entered === 1);
    const stopping = cancel(ann.id, run.id);
    // The tool returns once the cancel has reached the run (else it may return first and the run succeed).
    await until(async () => isStopping(run.id));
    gate.open();
    expect((await stopping).status).toBe('cancelled');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'run.finished']);
    expect(events[3]).toMatchObject({ tool: 'hold', result: 'released' });
    expect(events[4]).toMatchObject({ outcome: 'cancelled' });
    expect(events[4]).not.toHaveProperty('error');
    // The thread never saved that step: the record says what ran, the checkpoint what the conversation continues from.
    expect((await readThread(conversation.id)).messages.map((m) => m.getType())).toEqual(['human', 'ai']);
  });

  it('time cap: run.finished(failed) with stopReason time_capped', async () => {
    setRunMinuteMsForTests(10); // the default 15 "minutes" last 150 ms
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id);
    const run = await send(ann.id, conversation.id, '/sleep 20000\n/reply never');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'failed', stopReason: 'time_capped', error: "Stopped after 15 minutes (the run's time limit)" });
  });

  it('a run stopped by max turns records every turn it took, then the failure', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], maxTurns: 2 });
    const run = await send(ann.id, conversation.id, '/loop calculator {"expression":"1"}');
    expect(run.status).toBe('error');
    const events = await eventsOf(run.id);
    expectDense(events);
    // The last allowed turn's call is removed by the max-turns guard: its step has no tool call and no tool step.
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    expect(events[5]).toMatchObject({ type: 'step.assistant', toolCalls: [] });
    expect(events.at(-1)).toMatchObject({ outcome: 'failed', stopReason: 'turn_capped', error: 'Stopped after 2 model turns (max turns)' });
    await expectTotalsFromEvents(run);
  });
});

describe('caps: 2,000 characters (code points), flagged truncated past them', () => {
  const samples = { ASCII: 'a', CJK: '漢', emoji: '🦊' };
  for (const [name, ch] of Object.entries(samples)) {
    it(`${name}: 2,000 kept whole, 2,001 cut to 2,000 with truncated (reply text, tool args, tool result)`, async () => {
      const ann = await makeUser('ann');
      const { conversation } = await conversationWith(ann.id, { toolGroups: ['test_echo'] });
      for (const [length, cut] of [
        [2_000, false],
        [2_001, true],
      ] as const) {
        const text = ch.repeat(length);
        const run = await send(ann.id, conversation.id, `/call echo ${JSON.stringify({ text })}\n/reply ${text}`);
        expect(run.status).toBe('success');
        const events = await eventsOf(run.id);
        const [asked, replied] = ofType(events, 'step.assistant');
        const [result] = ofType(events, 'step.tool');
        // The reply: exactly 2,000 code points kept, never a split surrogate pair.
        expect(Array.from(replied!.text)).toHaveLength(2_000);
        expect(replied!.text).toBe(ch.repeat(2_000));
        expect(replied!.truncated).toBe(cut ? true : undefined);
        expect(result!.result).toBe(ch.repeat(2_000));
        expect(result!.truncated).toBe(cut ? true : undefined);
        // The arguments' JSON text ({"text":"…"}) is longer than the text itself: cut at 2,000 code points.
        const args = JSON.stringify({ text });
        expect(asked!.toolCalls[0]!.args).toBe(Array.from(args).slice(0, 2_000).join(''));
        expect(asked!.toolCalls[0]!.truncated).toBe(true);
        expect(asked!.truncated).toBeUndefined();
      }
    });
  }

  it('tool arguments at the cap are kept whole', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['test_echo'] });
    const text = '🦊'.repeat(2_000 - '{"text":""}'.length);
    const run = await send(ann.id, conversation.id, `/call echo ${JSON.stringify({ text })}\n/reply ok`);
    const [asked] = ofType(await eventsOf(run.id), 'step.assistant');
    expect(asked!.toolCalls[0]).toEqual({ id: expect.any(String), name: 'echo', args: JSON.stringify({ text }) });
    const longer = await send(ann.id, conversation.id, `/call echo ${JSON.stringify({ text: `${text}🦊` })}\n/reply ok`);
    expect(ofType(await eventsOf(longer.id), 'step.assistant')[0]!.toolCalls[0]).toMatchObject({ truncated: true });
  });
});

describe('caps on interrupt and resume values', () => {
  it('an interrupt payload and a resume answer longer than the cap are kept as their JSON text, cut and flagged', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['test_echo'], approvalTools: ['echo'] });
    const text = '漢'.repeat(2_500);
    const asked = await send(ann.id, conversation.id, `/call echo ${JSON.stringify({ text })}\n/reply ok`);
    const [interrupt] = ofType(await eventsOf(asked.id), 'interrupt');
    const payload = JSON.stringify({ type: 'approval', tool: 'echo', args: { text } });
    expect(interrupt).toMatchObject({ interrupt: Array.from(payload).slice(0, 2_000).join(''), truncated: true });
    // The run row keeps the whole payload: the person answers from it.
    expect(asked.interrupt).toEqual({ type: 'approval', tool: 'echo', args: { text } });

    const note = 'n'.repeat(2_500); // within the note's own bound (4,000 characters, 8,000 bytes)
    const { run } = await resume(ann.id, conversation.id, { approved: false, note }, { idempotencyKey: key() });
    const [answer] = ofType(await eventsOf((await finished(run.id)).id), 'resume');
    expect(answer).toMatchObject({ value: Array.from(JSON.stringify({ approved: false, note })).slice(0, 2_000).join(''), truncated: true });

    const short = await send(ann.id, conversation.id, '/call echo {"text":"hi"}\n/reply ok');
    expect(ofType(await eventsOf(short.id), 'interrupt')[0]).toEqual(expect.not.objectContaining({ truncated: true }));
  });
});

describe('a crash between steps', () => {
  it('after suspension and recovery every AI and tool message of the thread has exactly one step event; seq stays dense', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const script = [1, 2, 3, 4, 5].map((n) => `/call calculator {"expression":"${n}*10"}`).concat('/sleep 100', '/reply all done').join('\n');
    const { run } = await start(ann.id, conversation.id, { text: script }, { idempotencyKey: key() });
    // Two tool steps saved, the third model call sleeping: stop the process's work as a shutdown does.
    await until(async () => ofType(await eventsOf(run.id), 'step.tool').length >= 2, 10_000);
    const report = await suspendActiveRuns(5_000);
    expect(report).toEqual({ suspended: [run.id], settled: true });
    const before = await eventsOf(run.id);
    expect(before.at(-1)!.type).not.toBe('run.finished');

    resumeRunLaunches();
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    const done = await finished(run.id, 15_000);
    expect(done.status).toBe('success');

    const events = await eventsOf(run.id);
    expectDense(events);
    // What was saved before the stop is unchanged; the redone step was not recorded twice.
    expect(events.slice(0, before.length)).toEqual(before);
    expect(typesOf(events).filter((t) => t === 'run.started')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'run.started').map((e) => (e as { kind: string }).kind)).toEqual(['start', 'continue']);
    expect(typesOf(events).filter((t) => t === 'run.finished')).toHaveLength(1);

    const { messages } = await readThread(conversation.id);
    const ai = messages.filter((m): m is AIMessage => AIMessage.isInstance(m));
    const tools = messages.filter((m): m is ToolMessage => m.getType() === 'tool');
    expect(ai).toHaveLength(6);
    expect(tools).toHaveLength(5);
    const steps = ofType(events, 'step.assistant');
    expect(steps.map((s) => s.toolCalls.map((c) => c.id))).toEqual(ai.map((m) => (m.tool_calls ?? []).map((c) => c.id)));
    expect(steps.map((s) => s.text)).toEqual(ai.map((m) => m.content));
    expect(ofType(events, 'step.tool').map((t) => [t.toolCallId, t.result])).toEqual(tools.map((m) => [m.tool_call_id, m.content]));
    // One model call per AI message: the call cut short by the stop was dropped with its step.
    expect(ofType(events, 'model.call').filter((c) => !c.error)).toHaveLength(6);
    expect(ofType(events, 'model.call')).toHaveLength(6);
    await expectTotalsFromEvents(done);
  }, 30_000);
});

describe('runs finished outside an execution', () => {
  it('a crash after the last step: recovery records the run from its checkpoint without a second run.finished', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id);
    const run = await send(ann.id, conversation.id, '/reply hi');
    const before = await eventsOf(run.id);
    // What a crash between the events and the row update leaves: the row still running.
    await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', finishedAt: null }).where(eq(schema.runs.id, run.id)));
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'recorded', status: 'success' }]);
    expect(await eventsOf(run.id)).toEqual(before);
    expect(await findRun(run.id)).toMatchObject({ status: 'success', modelCalls: 1 });
  });

  it('a run cancelled before it executed records run.finished(cancelled) and no model calls', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id);
    const row = (await writeTx((tx) => tx
      .insert(schema.runs)
      .values({ id: key(), conversationId: conversation.id, ownerId: ann.id, idempotencyKey: key(), kind: 'start', status: 'pending', model: 'scripted', input: { text: 'hi' } })
      .returning()))[0]!;
    expect((await cancel(ann.id, row.id)).status).toBe('cancelled');
    const events = await eventsOf(row.id);
    expect(events.map((e) => [e.seq, e.type, (e as { outcome?: string }).outcome])).toEqual([[1, 'run.finished', 'cancelled']]);
    expect(await findRun(row.id)).toMatchObject({ modelCalls: 0, unreportedCalls: 0, inputTokens: 0 });
  });
});
