import { HumanMessage, type AIMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamModelCall } from '@/server/agents/live-output/stream-call';
import { createChatModel } from '@/server/agents/providers';
import { startSseProvider, type ProviderReply } from './sse-provider';

/**
 * The join against the real @langchain/openai client (through createChatModel): whatever shape a server streams an
 * answer in — a role in the first delta, in every delta or in none; chunk ids or none; usage in its own chunk, on
 * the last choice chunk or not at all; text and tool-call pieces interleaved and cut anywhere — the joined message
 * is the one the same server's non-streamed answer gives. What must not happen: an answer stored empty, a tool call
 * lost, a usage made up.
 */

type ToolCall = { id: string; name: string; args: string };
type Answer = { text: string; calls: ToolCall[]; usage: { prompt_tokens: number; completion_tokens: number } | null };
type Shape = { role: 'first' | 'every' | 'none'; ids: 'all' | 'none' | 'first'; usageOn: 'own-chunk' | 'last-chunk'; order: number[]; textCuts: number[]; argCuts: number[][] };

/** Pieces of `s` cut at the given code-unit positions (an emoji may be cut in half: the wire allows it). */
const cut = (s: string, at: number[]) => {
  const points = [...new Set(at.map((p) => p % (s.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) if (p > from) pieces.push(s.slice(from, (from = p)));
  if (from < s.length || !pieces.length) pieces.push(s.slice(from));
  return pieces.filter((p, i) => p !== '' || i === 0);
};

function streamOf(answer: Answer, shape: Shape, includeUsage: boolean): unknown[] {
  // Each source of pieces (the text, each call) keeps its own order; `order` picks which goes next.
  const sources: Array<Array<Record<string, unknown>>> = [
    answer.text ? cut(answer.text, shape.textCuts).map((content) => ({ content })) : [],
    ...answer.calls.map((call, index) =>
      cut(call.args, shape.argCuts[index] ?? []).map((args, k) => ({
        tool_calls: [k === 0 ? { index, id: call.id, type: 'function', function: { name: call.name, arguments: args } } : { index, function: { arguments: args } }],
      })),
    ),
  ];
  const deltas: Array<Record<string, unknown>> = [];
  let pick = 0;
  while (sources.some((s) => s.length)) {
    const open = sources.filter((s) => s.length);
    deltas.push(open[(shape.order[pick++ % Math.max(1, shape.order.length)] ?? 0) % open.length]!.shift()!);
  }
  const finish = answer.calls.length ? 'tool_calls' : 'stop';
  const usage = includeUsage && answer.usage ? { usage: { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens } } : {};
  const items = [...deltas, {}].map((delta, i, all) => {
    const last = i === all.length - 1;
    const role = shape.role === 'every' || (shape.role === 'first' && i === 0) ? { role: 'assistant' } : {};
    const id = shape.ids === 'all' || (shape.ids === 'first' && i === 0) ? { id: 'chatcmpl-shape' } : {};
    return { ...id, object: 'chat.completion.chunk', created: 1, model: 'stub', choices: [{ index: 0, delta: { ...role, ...delta }, finish_reason: last ? finish : null }], ...(last && shape.usageOn === 'last-chunk' ? usage : {}) };
  });
  if (shape.usageOn === 'own-chunk' && 'usage' in usage) items.push({ id: 'chatcmpl-shape', object: 'chat.completion.chunk', created: 1, model: 'stub', choices: [], ...usage });
  return items;
}

function completionOf(answer: Answer) {
  const tool_calls = answer.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  return {
    id: 'chatcmpl-shape',
    object: 'chat.completion',
    created: 1,
    model: 'stub',
    choices: [{ index: 0, message: { role: 'assistant', content: answer.text || null, ...(tool_calls.length ? { tool_calls } : {}) }, finish_reason: answer.calls.length ? 'tool_calls' : 'stop' }],
    ...(answer.usage ? { usage: { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens } } : {}),
  };
}

/** What a run keeps of an answer (usage apart: see the property). */
const kept = (m: AIMessage) => ({
  content: m.content,
  toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })),
  invalid: m.invalid_tool_calls ?? [],
  finish: m.response_metadata?.finish_reason,
});

const usageOf = (m: AIMessage) => m.usage_metadata && { input: m.usage_metadata.input_tokens, output: m.usage_metadata.output_tokens };

const text = fc.oneof(fc.constant(''), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('東京は 晴れ 😀 🎉', 'The answer is 42.', 'line\nbreak  spaces'));
const args = fc.dictionary(fc.constantFrom('a', 'b', 'expression', '式'), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant('😀')), { maxKeys: 3 }).map((o) => JSON.stringify(o));
const answerArb = fc.record({
  text,
  calls: fc.uniqueArray(fc.record({ id: fc.stringMatching(/^call_[a-z0-9]{1,8}$/), name: fc.constantFrom('calculator', 'current_time', 'lookup'), args }), { maxLength: 3, selector: (c) => c.id }),
  usage: fc.option(fc.record({ prompt_tokens: fc.nat(5000), completion_tokens: fc.nat(5000) }), { nil: null }),
});
const shapeArb = fc.record({
  role: fc.constantFrom('first', 'every', 'none'),
  ids: fc.constantFrom('all', 'none', 'first'),
  usageOn: fc.constantFrom('own-chunk', 'last-chunk'),
  order: fc.array(fc.nat(5), { maxLength: 30 }),
  textCuts: fc.array(fc.nat(60), { maxLength: 12 }),
  argCuts: fc.array(fc.array(fc.nat(60), { maxLength: 6 }), { maxLength: 3 }),
}) as fc.Arbitrary<Shape>;

const saved = { ...process.env };
let current: { answer: Answer; shape: Shape } | null = null;
let server: Awaited<ReturnType<typeof startSseProvider>>;

beforeAll(async () => {
  server = await startSseProvider((request): ProviderReply => {
    const { answer, shape } = current!;
    if (!request.body.stream) return { json: completionOf(answer) };
    return { sse: streamOf(answer, shape, request.body.stream_options?.include_usage === true) };
  });
  process.env.OPENAI_API_KEY = 'sk-test-shapes';
  process.env.OPENAI_BASE_URL = server.baseURL;
});
afterAll(async () => {
  process.env = { ...saved };
  await server.close();
});

describe('a streamed answer joins to the non-streamed answer, whatever the chunks look like', () => {
  it('random answers, random chunkings, random chunk shapes', { timeout: 120_000 }, async () => {
    const model = await createChatModel({ name: 'Shapes', model: 'openai:gpt-4.1-mini' });
    const input = [new HumanMessage('Question')];
    await fc.assert(
      fc.asyncProperty(answerArb, shapeArb, async (answer, shape) => {
        current = { answer, shape };
        const invoked = (await model.invoke(input)) as AIMessage;
        const shown: string[] = [];
        const joined = await streamModelCall(model, input, {}, (t) => shown.push(t));
        expect(kept(joined)).toEqual(kept(invoked));
        // Usage is compared with what the server sent: the client's non-streamed path drops a reported 0 and
        // makes an empty object of none; the stream keeps it exactly (absent stays absent).
        expect(usageOf(joined)).toEqual(answer.usage ? { input: answer.usage.prompt_tokens, output: answer.usage.completion_tokens } : undefined);
        expect(joined.content).toBe(answer.text);
        expect(joined.tool_calls!.map((c) => c.id)).toEqual(answer.calls.map((c) => c.id));
        expect(shown.join('')).toBe(answer.text);
      }),
      { numRuns: 60 },
    );
  });

  it('no role in any delta: the text and the tool calls are all kept (the case the issue found)', async () => {
    const model = await createChatModel({ name: 'Shapes', model: 'openai:gpt-4.1-mini' });
    const answer: Answer = { text: 'Let me check 東京 😀.', calls: [{ id: 'call_1', name: 'calculator', args: '{"expression":"6*7"}' }], usage: { prompt_tokens: 3, completion_tokens: 4 } };
    current = { answer, shape: { role: 'none', ids: 'all', usageOn: 'own-chunk', order: [0, 1, 0, 1], textCuts: [3, 9, 14], argCuts: [[2, 7]] } };
    const joined = await streamModelCall(model, [new HumanMessage('Question')], {}, () => {});
    expect(joined.content).toBe('Let me check 東京 😀.');
    expect(joined.tool_calls).toEqual([{ id: 'call_1', name: 'calculator', args: { expression: '6*7' }, type: 'tool_call' }]);
    expect(joined.usage_metadata).toMatchObject({ input_tokens: 3, output_tokens: 4 });
  });
});
