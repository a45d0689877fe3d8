/**
 * An OpenAI-compatible chat completions server (POST /v1/chat/completions, streamed as SSE `data:` lines ending with
 * `data: [DONE]`), with the behaviours of servers and gateways that are not OpenAI's own, picked by the model name:
 *
 *   stub                      what api.openai.com does: role in the first delta, a fresh id per completion, usage
 *                             in a last `choices: []` chunk when `stream_options.include_usage` asks for it
 *   stub-norole               no `role` in any delta (allowed by the wire format; several servers omit it)
 *   stub-noids                chunks without an `id`
 *   stub-reused-ids           the same completion id for every completion (some gateways)
 *   stub-reused-call-ids      tool-call ids numbered per completion (`call_0`, `call_1`), so every turn reuses them
 *   stub-nousage              never reports usage, even when asked
 *   stub-refuse-stream-options  400 invalid_request_error naming `stream_options` when the request has it
 *   stub-split-args           tool-call arguments one character per chunk, the first chunk without `arguments`
 *   stub-parallel             two calculator calls in one answer
 *   stub-reasoning            `reasoning_content` deltas before the content (DeepSeek, vLLM, llama.cpp)
 *   stub-429 / stub-500       the first attempt of each call answers 429 (Retry-After: 1) or 500
 *   stub-midstream-break      the first attempt of each call breaks the connection after its first chunk
 *   stub-slow-first-token     headers at once, the first chunk 2 s later
 *   stub-bench                answers "bench MARKER [N]" with text at once, N (default 8) pieces of "streamed text "
 *                             (scripts/bench-providers.ts)
 *
 * Like the real API it refuses a conversation whose tool messages don't answer the assistant's tool calls (400).
 */
import crypto from 'node:crypto';
import { answerText, delay, expressionIn, FirstAttempts, listen, pieces, readJson, sendJson, tokensOf, write, type Stub, type StubHooks } from './common';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
type Message = { role: string; content?: string | Array<{ type: string; text?: string }> | null; tool_calls?: ToolCall[]; tool_call_id?: string };
type Body = { model?: string; messages?: Message[]; stream?: boolean; stream_options?: { include_usage?: boolean }; tools?: unknown[] };

const textOf = (content: Message['content']) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part.text ?? '').join('') : '';

const invalid = (message: string, param: string | null = 'messages') => ({ error: { message, type: 'invalid_request_error', param, code: null } });

/** OpenAI's own checks on the message list: every tool message answers a call of the assistant message before it. */
function checkMessages(messages: Message[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) answered.add(messages[j]!.tool_call_id ?? '');
      const missing = message.tool_calls.filter((call) => !answered.has(call.id)).map((call) => call.id);
      if (missing.length)
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
    }
    if (message.role === 'tool') {
      let k = i - 1;
      while (k >= 0 && messages[k]!.role === 'tool') k--;
      const owner = messages[k];
      if (!owner || owner.role !== 'assistant' || !owner.tool_calls?.some((call) => call.id === message.tool_call_id))
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
    if (message.role === 'assistant' && !message.tool_calls?.length && !textOf(message.content))
      return `Invalid value for 'messages[${i}].content': an assistant message needs content or tool_calls.`;
  }
  return null;
}

export async function startOpenAiStub(hooks: StubHooks = {}): Promise<Stub> {
  const attempts = new FirstAttempts();
  return listen(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return sendJson(res, 404, invalid(`Unknown request URL: ${req.method} ${req.url}`, null));
    if (!req.headers.authorization?.startsWith('Bearer ')) return sendJson(res, 401, { error: { message: 'You didn’t provide an API key.', type: 'invalid_request_error', param: null, code: null } });
    const body = (await readJson(req)) as Body;
    const model = body.model ?? '';
    const variant = model.replace(/^stub-?/, '') || 'plain';
    const messages = body.messages ?? [];
    const problem = checkMessages(messages);
    if (problem) return sendJson(res, 400, invalid(problem));
    if (variant === 'refuse-stream-options' && body.stream_options !== undefined)
      return sendJson(res, 400, invalid('Unrecognized request argument supplied: stream_options', 'stream_options'));
    if (variant === '429' && attempts.first(body))
      return sendJson(res, 429, { error: { message: `Rate limit reached for ${model}. Please try again in 1s.`, type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': '1' });
    if (variant === '500' && attempts.first(body))
      return sendJson(res, 500, { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } });

    const reply = plan(variant, messages, Boolean(body.tools?.length));
    const id = variant === 'reused-ids' ? 'chatcmpl-stub-reused' : `chatcmpl-${crypto.randomBytes(12).toString('base64url')}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, withRole = false) => ({
      ...(variant === 'noids' ? {} : { id }),
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_stub',
      choices: [{ index: 0, delta: withRole ? { role: 'assistant', ...delta } : delta, logprobs: null, finish_reason: finish }],
    });
    const deltas: Record<string, unknown>[] = [];
    if (variant === 'reasoning') for (const piece of pieces('Let me work this out with the calculator.', 9)) deltas.push({ reasoning_content: piece });
    if (reply.kind === 'text') for (const piece of pieces(reply.text, 5)) deltas.push({ content: piece });
    else
      reply.calls.forEach((call, index) => {
        const size = variant === 'split-args' ? 1 : 6;
        deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, ...(variant === 'split-args' ? {} : { arguments: '' }) } }] });
        for (const piece of pieces(call.arguments, size)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
      });

    if (!body.stream) {
      // Not used by the app (it streams), answered faithfully anyway.
      const message = reply.kind === 'text' ? { role: 'assistant', content: reply.text } : { role: 'assistant', content: null, tool_calls: reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
      return sendJson(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: reply.kind === 'text' ? 'stop' : 'tool_calls' }], usage: usage(messages) });
    }

    // Role only in the first delta, as OpenAI sends it (norole: never).
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': `req_${crypto.randomUUID()}` });
    res.flushHeaders();
    if (variant === 'slow-first-token') await delay(2_000);
    const send = (value: unknown) => write(res, `data: ${JSON.stringify(value)}\n\n`);
    const breakAfterFirst = variant === 'midstream-break' && attempts.first(body);
    await send(chunk({ content: '' }, null, variant !== 'norole'));
    if (breakAfterFirst) return void res.socket?.destroy();
    let announced = false;
    for (const delta of deltas) {
      if (hooks.tokenDelayMs) await delay(hooks.tokenDelayMs);
      if (!announced && typeof delta.content === 'string' && delta.content) {
        announced = true;
        hooks.onFirstToken?.(model, reply.kind === 'text' ? reply.text : '');
      }
      hooks.onChunk?.();
      await send(chunk(delta));
    }
    await send(chunk({}, reply.kind === 'text' ? 'stop' : 'tool_calls'));
    if (body.stream_options?.include_usage && variant !== 'nousage') await send({ ...(variant === 'noids' ? {} : { id }), object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_stub', choices: [], usage: usage(messages) });
    await write(res, 'data: [DONE]\n\n');
    res.end();
  });
}

const usage = (messages: Message[]) => ({ prompt_tokens: tokensOf(messages), completion_tokens: 12, total_tokens: tokensOf(messages) + 12 });

type Reply = { kind: 'text'; text: string } | { kind: 'calls'; calls: Array<{ id: string; name: string; arguments: string }> };

/**
 * After tool results: an answer quoting them. After a question: a calculator call (two when `parallel`). Offered no
 * tools (the app's summary call): a text answer, as a model can only call the tools it is given.
 */
function plan(variant: string, messages: Message[], tools: boolean): Reply {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(textOf(messages[i]!.content));
    return { kind: 'text', text: answerText(results) };
  }
  const question = textOf([...messages].reverse().find((m) => m.role === 'user')?.content);
  if (variant === 'bench' || question.startsWith('bench ')) {
    const repeat = Number(/^bench \S+ (\d+)/.exec(question)?.[1] ?? 8);
    return { kind: 'text', text: `${question.trim()} — ${'streamed text '.repeat(repeat)}` };
  }
  if (!tools) return { kind: 'text', text: `Summary: the person asked ${messages.filter((m) => m.role === 'user').length} arithmetic questions and the calculator answered them.` };
  const expression = expressionIn(question);
  const expressions = variant === 'parallel' ? [expression, `(${expression})*2`] : [expression];
  return {
    kind: 'calls',
    calls: expressions.map((e, i) => ({ id: variant === 'reused-call-ids' ? `call_${i}` : `call_${crypto.randomBytes(9).toString('base64url')}`, name: 'calculator', arguments: JSON.stringify({ expression: e }) })),
  };
}
