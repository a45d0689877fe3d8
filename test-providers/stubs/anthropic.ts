/**
 * An Anthropic Messages server (POST /v1/messages, streamed as SSE named events: message_start, content_block_start,
 * ping, content_block_delta with text_delta / input_json_delta, content_block_stop, message_delta, message_stop),
 * picked by the model name:
 *
 *   stub             a `tool_use` block (its input streamed as partial JSON) after a question; text after a result
 *   stub-max-tokens  the answer stops early with stop_reason `max_tokens` (the result is quoted before the cut)
 *   stub-overloaded  the first attempt of each call answers 529 with Anthropic's `overloaded_error` body
 *
 * Like the real API it refuses (400 invalid_request_error) a `tool_result` without its `tool_use` in the message
 * before it, and a message with empty content.
 */
import crypto from 'node:crypto';
import { answerText, delay, expressionIn, FirstAttempts, listen, pieces, readJson, sendJson, tokensOf, write, type Stub, type StubHooks } from './common';

type Block = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: string | Block[] };
type Message = { role: 'user' | 'assistant'; content: string | Block[] };
type Body = { model?: string; messages?: Message[]; stream?: boolean; max_tokens?: number };

const blocks = (content: Message['content']): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
const textOf = (content: Block['content']): string => (typeof content === 'string' ? content : (content ?? []).map((b) => b.text ?? '').join(''));
const invalid = (message: string) => ({ type: 'error', error: { type: 'invalid_request_error', message } });

function checkMessages(messages: Message[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const content = blocks(messages[i]!.content);
    const isFinalAssistant = i === messages.length - 1 && messages[i]!.role === 'assistant';
    if (!isFinalAssistant && (!content.length || content.every((b) => b.type === 'text' && !b.text)))
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    const results = content.filter((b) => b.type === 'tool_result');
    if (results.length) {
      const uses = new Set(i > 0 ? blocks(messages[i - 1]!.content).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      const stray = results.find((b) => !uses.has(b.tool_use_id));
      if (stray)
        return `messages.${i}.content.${content.indexOf(stray)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return null;
}

export async function startAnthropicStub(hooks: StubHooks = {}): Promise<Stub> {
  const attempts = new FirstAttempts();
  return listen(async (req, res) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
    if (!req.headers['x-api-key']) return sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    const body = (await readJson(req)) as Body;
    const model = body.model ?? '';
    const variant = model.replace(/^stub-?/, '') || 'plain';
    const messages = body.messages ?? [];
    const problem = checkMessages(messages);
    if (problem) return sendJson(res, 400, invalid(problem));
    if (variant === 'overloaded' && attempts.first(body)) return sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

    const last = blocks(messages.at(-1)?.content ?? []);
    const results = last.filter((b) => b.type === 'tool_result').map((b) => textOf(b.content));
    const question = last.filter((b) => b.type === 'text').map((b) => b.text).join('');
    const id = `msg_${crypto.randomBytes(12).toString('hex')}`;
    const usage = { input_tokens: tokensOf(messages), output_tokens: 1 };

    const events: Array<[string, unknown]> = [];
    let stopReason: string;
    if (results.length || question.startsWith('bench ')) {
      const full = results.length ? answerText(results) : `${question} — ${'streamed text '.repeat(8)}`;
      // max_tokens: cut after the quoted result, mid-sentence, as a real cut would be.
      const text = variant === 'max-tokens' ? full.slice(0, full.indexOf('. That') + 6) : full;
      stopReason = variant === 'max-tokens' ? 'max_tokens' : 'end_turn';
      events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
      for (const piece of pieces(text, 5)) events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
    } else {
      // Claude often writes a sentence before the call: a text block, then the tool_use block.
      const input = JSON.stringify({ expression: expressionIn(question) });
      stopReason = 'tool_use';
      events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'I will use the calculator.' } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
      events.push(['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: `toolu_${crypto.randomBytes(12).toString('hex')}`, name: 'calculator', input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } }]);
      for (const piece of pieces(input, 7)) events.push(['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: piece } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index: 1 }]);
    }

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_${crypto.randomBytes(12).toString('hex')}` });
    const send = (event: string, data: unknown) => write(res, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    await send('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage } });
    await send('ping', { type: 'ping' });
    let announced = false;
    for (const [event, data] of events) {
      const delta = (data as { delta?: { type: string; text?: string } }).delta;
      if (hooks.tokenDelayMs && delta) await delay(hooks.tokenDelayMs);
      if (!announced && delta?.type === 'text_delta' && delta.text) {
        announced = true;
        hooks.onFirstToken?.(model, delta.text);
      }
      await send(event, data);
    }
    await send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 12 } });
    await send('message_stop', { type: 'message_stop' });
    res.end();
  });
}
