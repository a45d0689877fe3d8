/**
 * Provider conformance: the built app (`next start`) against stub servers that speak each supported wire format
 * the way real servers and gateways do (test-providers/stubs/), through the real LangChain packages. Each case is a
 * three-turn conversation in which every turn calls the calculator and then answers with its result; afterwards the
 * conversation must hold every message in order, none empty, each tool result paired with its call, and each model
 * call's usage recorded or counted as unreported.
 */
import { describe, expect, inject, test } from 'vitest';
import { Api, type Message, type Run, type RunEvent } from './api';

type Case = {
  model: string;
  /** Calculator calls per turn (2: parallel tool calls). */
  calls: 1 | 2;
  /** What the stub does about usage: reports it, never does, or depends on whether the app asks in a way it accepts. */
  usage: 'reported' | 'unreported' | 'either';
};

const CASES: Case[] = [
  { model: 'openai:stub', calls: 1, usage: 'reported' },
  { model: 'openai:stub-norole', calls: 1, usage: 'reported' },
  { model: 'openai:stub-noids', calls: 1, usage: 'reported' },
  { model: 'openai:stub-reused-ids', calls: 1, usage: 'reported' },
  { model: 'openai:stub-reused-call-ids', calls: 1, usage: 'reported' },
  { model: 'openai:stub-nousage', calls: 1, usage: 'unreported' },
  { model: 'openai:stub-split-args', calls: 1, usage: 'reported' },
  { model: 'openai:stub-parallel', calls: 2, usage: 'reported' },
  { model: 'openai:stub-reasoning', calls: 1, usage: 'reported' },
  { model: 'openai:stub-429', calls: 1, usage: 'reported' },
  { model: 'openai:stub-500', calls: 1, usage: 'reported' },
  { model: 'openai:stub-midstream-break', calls: 1, usage: 'reported' },
  { model: 'openai:stub-slow-first-token', calls: 1, usage: 'reported' },
  { model: 'anthropic:stub', calls: 1, usage: 'reported' },
  { model: 'anthropic:stub-max-tokens', calls: 1, usage: 'reported' },
  { model: 'anthropic:stub-overloaded', calls: 1, usage: 'reported' },
  { model: 'ollama:stub', calls: 1, usage: 'reported' },
];

/** The three turns: each question's arithmetic, and what the calculator answers for it. */
const TURNS = [
  { text: 'What is 2+3?', expressions: ['2+3', '(2+3)*2'], results: ['5', '10'] },
  { text: 'And what is 6*7?', expressions: ['6*7', '(6*7)*2'], results: ['42', '84'] },
  { text: 'Finally, what is 10-4?', expressions: ['10-4', '(10-4)*2'], results: ['6', '12'] },
];

/** A message reduced to what the checks compare, so a failure prints the whole conversation's shape. */
function shape(message: Message) {
  if (message.role === 'tool') return { role: 'tool', toolName: message.toolName, text: message.text, failed: message.status === 'error' };
  if (message.role === 'assistant' && message.toolCalls?.length) return { role: 'assistant', calls: message.toolCalls.map((call) => `${call.name}(${String(call.args.expression)})`).sort() };
  return { role: message.role, text: message.text };
}

function expectedShape(calls: 1 | 2) {
  return TURNS.flatMap((turn) => [
    { role: 'user', text: turn.text },
    { role: 'assistant', calls: turn.expressions.slice(0, calls).map((e) => `calculator(${e})`).sort() },
    ...turn.results.slice(0, calls).map(() => ({ role: 'tool', toolName: 'calculator', text: expect.any(String), failed: false })),
    { role: 'assistant', text: expect.stringContaining(turn.results[0]!) },
  ]);
}

/**
 * Each successful model call's usage is either reported (both counts > 0) or absent; the run's figures are the sums
 * over all its model.call events (docs/api.md), a failed attempt's (no usage) counted as unreported.
 */
function checkUsage(model: string, usage: Case['usage'], run: Run, events: RunEvent[]) {
  const all = events.filter((event) => event.type === 'model.call');
  const calls = all.filter((event) => !event.error);
  expect(calls.length, `${model}: successful model calls in run ${run.id}`).toBeGreaterThanOrEqual(2);
  const hasUsage = (call: RunEvent) => call.inputTokens !== undefined || call.outputTokens !== undefined;
  for (const call of calls.filter(hasUsage)) {
    expect(call.inputTokens, `${model}: input tokens of a reported call`).toBeGreaterThan(0);
    expect(call.outputTokens, `${model}: output tokens of a reported call`).toBeGreaterThan(0);
  }
  const unreported = calls.filter((call) => !hasUsage(call)).length;
  if (usage === 'reported') expect(unreported, `${model}: calls without usage though the server reported it`).toBe(0);
  if (usage === 'unreported') expect(unreported, `${model}: calls counted as reported though the server reported none`).toBe(calls.length);
  expect(
    { modelCalls: run.modelCalls, unreportedCalls: run.unreportedCalls, inputTokens: run.inputTokens ?? 0 },
    `${model}: the run's figures are the sums of its model.call events`,
  ).toEqual({ modelCalls: all.length, unreportedCalls: all.filter((call) => !hasUsage(call)).length, inputTokens: all.reduce((total, call) => total + (call.inputTokens ?? 0), 0) });
}

async function threeTurns({ model, calls, usage }: Case) {
  const { url, token } = inject('providersApp');
  const api = new Api(url, token);
  const conversationId = await api.createConversation(await api.createAgent(model));
  const runs: Run[] = [];
  for (const turn of TURNS) {
    const run = await api.send(conversationId, turn.text);
    expect({ status: run.status, error: run.error }, `${model}: run of "${turn.text}"`).toEqual({ status: 'success', error: null });
    runs.push(run);
  }

  const messages = await api.messages(conversationId);
  expect(messages.map(shape), `${model}: the conversation`).toEqual(expectedShape(calls));
  for (const message of messages) {
    const empty = !message.text.trim() && !message.toolCalls?.length;
    expect(empty, `${model}: message ${message.id} (${message.role}) is empty`).toBe(false);
  }
  // Each tool result answers a call of the assistant message before its run of results, with that call's result.
  messages.forEach((message, i) => {
    if (message.role !== 'tool') return;
    let j = i - 1;
    while (messages[j]?.role === 'tool') j--;
    const call = messages[j]?.toolCalls?.find((c) => c.id === message.toolCallId);
    expect(call, `${model}: tool message ${message.id} answers call ${message.toolCallId} of the message before`).toBeDefined();
    const turn = TURNS.find((t) => t.expressions.includes(String(call!.args.expression)))!;
    expect(message.text).toContain(turn.results[turn.expressions.indexOf(String(call!.args.expression))]);
  });
  expect(new Set(messages.map((m) => m.id)).size, `${model}: message ids are distinct`).toBe(messages.length);

  for (const run of runs) checkUsage(model, usage, run, await api.events(run.id));
}

describe.concurrent('providers: a three-turn conversation with a tool call on each turn', () => {
  for (const c of CASES) test(c.model, () => threeTurns(c));
});

// After the others: the app remembers a parameter a server refused, per endpoint (as it should), and every OpenAI
// variant is served from the one OPENAI_BASE_URL, so once this case has taught it, no call there asks for usage.
describe('providers: a server that refuses stream_options (after the cases that expect usage)', () => {
  test('openai:stub-refuse-stream-options', async () => {
    await threeTurns({ model: 'openai:stub-refuse-stream-options', calls: 1, usage: 'either' });
    // The refusal is remembered and shown in the provider's status (the test account is the instance's admin).
    const { url, token } = inject('providersApp');
    const { builtin } = await new Api(url, token).call<{ builtin: { slug: string; refusedParameters: string[] }[] }>('GET', '/admin/providers');
    expect(builtin.find((b) => b.slug === 'openai')?.refusedParameters).toEqual(['stream_options']);
    expect(builtin.find((b) => b.slug === 'anthropic')?.refusedParameters).toEqual([]);
  });
});
