/**
 * Ollama's native API (POST /api/chat, streamed as NDJSON: one JSON object a line, the last with `done: true`,
 * `done_reason` and the token counts `prompt_eval_count` / `eval_count`). Tool calls come whole in one line, their
 * `arguments` an object and without ids, as Ollama sends them. A question gets a calculator call; tool results
 * (role `tool`) get an answer quoting them. Also answers GET /api/tags and /api/version like Ollama.
 */
import { answerText, expressionIn, listen, pieces, readJson, sendJson, tokensOf, write, type Stub } from './common';

type Message = { role: string; content?: string; tool_calls?: unknown[] };
type Body = { model?: string; messages?: Message[]; stream?: boolean };

export async function startOllamaStub(): Promise<Stub> {
  return listen(async (req, res) => {
    if (req.method === 'GET' && req.url === '/api/version') return sendJson(res, 200, { version: '0.12.0' });
    if (req.method === 'GET' && req.url === '/api/tags') return sendJson(res, 200, { models: [] });
    if (req.method !== 'POST' || req.url !== '/api/chat') return sendJson(res, 404, { error: '404 page not found' });
    const body = (await readJson(req)) as Body;
    const model = body.model ?? '';
    const messages = body.messages ?? [];
    const createdAt = () => new Date().toISOString();
    const lines: unknown[] = [];
    if (messages.at(-1)?.role === 'tool') {
      const results: string[] = [];
      for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!.content ?? '');
      for (const piece of pieces(answerText(results), 5)) lines.push({ model, created_at: createdAt(), message: { role: 'assistant', content: piece }, done: false });
    } else {
      const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      lines.push({ model, created_at: createdAt(), message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'calculator', arguments: { expression: expressionIn(question) } } }] }, done: false });
    }
    const final = { model, created_at: createdAt(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 1_000_000, load_duration: 10_000, prompt_eval_count: tokensOf(messages), prompt_eval_duration: 100_000, eval_count: 12, eval_duration: 500_000 };
    if (body.stream === false) {
      const content = lines.map((line) => (line as { message: Message }).message.content).join('');
      const toolCalls = lines.flatMap((line) => (line as { message: Message }).message.tool_calls ?? []);
      return sendJson(res, 200, { ...final, message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } });
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    for (const line of [...lines, final]) await write(res, `${JSON.stringify(line)}\n`);
    res.end();
  });
}
