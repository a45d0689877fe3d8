import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getState, start } from '@/server/agents/runs';
import { makeUser } from '../support/users';
import { conversationWith, finished, send } from './helpers';

async function owner() {
  return makeUser('scripted');
}

describe('scripted model through the real graph and ToolNode', () => {
  it('answers plain text with "<name> received: <first line>" and reports usage as characters ÷ 4', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Echo' });
    const run = await send(alice.id, conversation.id, 'Hello there\nsecond line');
    expect(run.status).toBe('success');
    const state = await getState(alice.id, conversation.id);
    expect(state.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hello there\nsecond line'],
      ['assistant', 'Echo received: Hello there'],
    ]);
    expect(run.outputTokens).toBe(Math.ceil('Echo received: Hello there'.length / 4));
    expect(run.inputTokens).toBeGreaterThan(Math.ceil('Hello there\nsecond line'.length / 4));
  });

  it('cuts the received line at 200 characters (code points)', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Echo' });
    const line = '😀'.repeat(250);
    await send(alice.id, conversation.id, line);
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages[1]!.text).toBe(`Echo received: ${'😀'.repeat(200)}`);
  });

  it('runs /call directives one per model turn through the ToolNode and lists each result', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Calc', toolGroups: ['utility'] });
    const run = await send(alice.id, conversation.id, 'Please compute\n/call calculator {"expression":"(2+3)*4"}\n  /call current_time {}');
    expect(run.status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(messages[1]!.toolCalls).toEqual([{ id: expect.any(String), name: 'calculator', args: { expression: '(2+3)*4' } }]);
    expect(messages[2]).toMatchObject({ role: 'tool', toolName: 'calculator', text: '20', toolCallId: messages[1]!.toolCalls![0]!.id });
    expect(messages[3]!.toolCalls![0]!.name).toBe('current_time');
    expect(messages[4]!.text).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(messages[5]!.text).toBe(`Calc: done\n[calculator] 20\n[current_time] ${messages[4]!.text}`);
  });

  it('gives the /reply text as the final answer after the calls', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'] });
    await send(alice.id, conversation.id, '/call calculator {"expression":"1+1"}\n/reply All set.\n/reply Second line.');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'All set.\nSecond line.' });
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual(['2']);
  });

  it('reports a tool outside the allowlist as a tool error, not a crash', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Narrow', toolGroups: ['clarify'] });
    const run = await send(alice.id, conversation.id, '/call calculator {"expression":"1+1"}');
    expect(run.status).toBe('success');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages[2]!.text).toContain('Tool "calculator" not found');
    expect(messages[3]!.text).toMatch(/^Narrow: done\n\[calculator\] Error: Tool "calculator" not found/);
  });

  it('/fail makes the model call throw: a handled failure, the run errors with that message', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, 'try\n/fail Provider exploded (503)');
    expect(run).toMatchObject({ status: 'error', error: 'Provider exploded (503)', stopReason: null });
    const { messages } = await getState(alice.id, conversation.id);
    // The graph ended cleanly on a framework-marked message (shown as a note, never as the agent speaking).
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]).toMatchObject({ text: 'The model call failed: Provider exploded (503)', provenance: { contentKind: 'note', producer: { type: 'framework' } } });
    expect(messages[1]!.meta).toMatchObject({ modelError: { message: 'Provider exploded (503)', kind: 'provider' } });
  });

  it('refuses unreadable directives with a clear error', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, '/call calculator {not json}');
    expect(run.status).toBe('error');
    expect(run.error).toContain('/call calculator {not json}: the arguments are not valid JSON');
  });

  it('/sleep delays each response', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Slow' });
    const began = Date.now();
    const run = await send(alice.id, conversation.id, 'nap\n/sleep 300');
    expect(run.status).toBe('success');
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(run.finishedAt!.getTime() - run.startedAt!.getTime()).toBeGreaterThanOrEqual(300);
  });

  it('/ask ends the turn with a clarification; the answer as a new message is accepted', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Asker', toolGroups: ['clarify'] });
    const asked = await send(alice.id, conversation.id, 'Plan the trip\n/ask Which city?');
    expect(asked.status).toBe('interrupted');
    const { messages } = await getState(alice.id, conversation.id);
    const call = messages[1]!.toolCalls![0]!;
    expect(call).toMatchObject({ name: 'ask_clarification', args: { question: 'Which city?' } });
    expect(asked.interrupt).toEqual({ type: 'clarification', question: 'Which city?', questionId: call.id });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);

    const { run } = await start(
      alice.id,
      conversation.id,
      { text: 'Lisbon', meta: { kind: 'clarification_answer', questionId: call.id } },
      { idempotencyKey: crypto.randomUUID() },
    );
    const answered = await finished(run.id);
    expect(answered.status).toBe('success');
    const after = await getState(alice.id, conversation.id);
    expect(after.messages.at(-2)).toMatchObject({ role: 'user', text: 'Lisbon', meta: { kind: 'clarification_answer', questionId: call.id, runId: run.id } });
    expect(after.messages.at(-1)!.text).toBe('Clarification accepted: Lisbon.');
    expect(after.interrupt).toBeNull();
  });

  it("a plain message sent while the agent's question waits is recorded as its answer (as the chat says), and only then", async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Asker', toolGroups: ['clarify'] });
    const asked = await send(alice.id, conversation.id, '/ask Which colour? 颜色?');
    const questionId = (asked.interrupt as { questionId: string }).questionId;
    const { run } = await start(alice.id, conversation.id, { text: '蓝色 blue 💙' }, { idempotencyKey: crypto.randomUUID() });
    expect((await finished(run.id)).status).toBe('success');
    const after = await getState(alice.id, conversation.id);
    expect(after.messages.at(-2)).toMatchObject({
      role: 'user',
      text: '蓝色 blue 💙',
      meta: { kind: 'clarification_answer', questionId },
      provenance: { contentKind: 'clarification_answer', producer: { type: 'person' } },
    });
    expect(after.messages.at(-1)!.text).toBe('Clarification accepted: 蓝色 blue 💙.');

    // Nothing waits now: the next message is an ordinary one.
    const { run: next } = await start(alice.id, conversation.id, { text: '/reply thanks' }, { idempotencyKey: crypto.randomUUID() });
    await finished(next.id);
    const last = await getState(alice.id, conversation.id);
    expect(last.messages.at(-2)).toMatchObject({ role: 'user', text: '/reply thanks', provenance: { contentKind: 'person_message' } });
    expect(last.messages.at(-2)!.meta).not.toHaveProperty('kind');
  });

  it('reads directives from ensemble.taskText, not from the framework content around it', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { name: 'Member', toolGroups: ['utility'] });
    const { run } = await start(
      alice.id,
      conversation.id,
      {
        text: '/call calculator {"expression":"6*7"}',
        messageContent: 'Framework preamble\n/reply injected from context\n<request>/call calculator {"expression":"6*7"}</request>',
        meta: { kind: 'team_request', jobId: 'j1' },
      },
      { idempotencyKey: crypto.randomUUID() },
    );
    expect((await finished(run.id)).status).toBe('success');
    const { messages, threadMessages } = await getState(alice.id, conversation.id);
    expect(threadMessages[0]!.content).toContain('Framework preamble');
    expect(messages[0]).toMatchObject({ role: 'user', text: '/call calculator {"expression":"6*7"}', meta: { kind: 'team_request', jobId: 'j1' } });
    expect(messages.at(-1)!.text).toBe('Member: done\n[calculator] 42');
  });

  it('answers a result receipt with its status, member and the first 200 characters', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id);
    const resultText = 'R'.repeat(300);
    const { run } = await start(
      alice.id,
      conversation.id,
      { text: resultText, messageContent: 'receipt wrapper', meta: { kind: 'receipt', status: 'completed', memberName: 'Writer', resultText } },
      { idempotencyKey: crypto.randomUUID() },
    );
    await finished(run.id);
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.at(-1)!.text).toBe(`Received completed result from Writer: ${'R'.repeat(200)}`);
  });

  it('/loop repeats the same call until max turns stops the run (no partial answer: failed, turn_capped)', async () => {
    const alice = await owner();
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], maxTurns: 3 });
    const run = await send(alice.id, conversation.id, '/loop calculator {"expression":"1+1"}');
    expect(run).toMatchObject({ status: 'error', stopReason: 'turn_capped', error: 'Stopped after 3 model turns (max turns)' });
    const { messages } = await getState(alice.id, conversation.id);
    // The third turn's call was removed (its result would need a fourth turn) and its empty response not kept.
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual(['2', '2']);
    expect(messages.at(-1)).toMatchObject({ role: 'user', text: 'Stopped after 3 model turns (max turns)', provenance: { contentKind: 'note' } });
    expect(run.outputTokens).toBeGreaterThan(0);

    // The conversation continues after the stopped run: the turn budget counts from the newest message.
    const next = await send(alice.id, conversation.id, 'still there?');
    expect(next.status).toBe('success');
    expect((await getState(alice.id, conversation.id)).messages.at(-1)!.text).toMatch(/received: still there\?$/);
  });
});
