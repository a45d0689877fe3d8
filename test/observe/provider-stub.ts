import http from 'node:http';
import type { AddressInfo } from 'node:net';

type ToolCallSpec = { name: string; arguments: string };
/** One scripted completion: tool calls or text, with or without a usage block. */
export type StubTurn = { toolCalls?: ToolCallSpec[]; text?: string; finish: string; usage?: { prompt_tokens: number; completion_tokens: number } };

/**
 * An OpenAI-compatible chat completions server on 127.0.0.1 that answers with the given turns in order (the last
 * one repeats). Unlike test/agents/openai-stub.ts it can ask for several tool calls in one message and leave out
 * `usage`, which the scripted model never does. Non-streaming and streaming (SSE) both work.
 */
export async function startProviderStub(turns: StubTurn[]) {
  let served = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
      const turn = turns[Math.min(served, turns.length - 1)]!;
      served++;
      const toolCalls = turn.toolCalls?.map((c, i) => ({ id: `call_${served}_${i}`, type: 'function', function: c }));
      const message = { role: 'assistant', content: turn.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
      const usage = turn.usage ? { usage: { ...turn.usage, total_tokens: turn.usage.prompt_tokens + turn.usage.completion_tokens } } : {};
      const base = { id: `chatcmpl-${served}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'stub' };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: turn.finish }], ...usage }));
        return;
      }
      // As OpenAI streams: the text word by word (tool calls in one delta), the finish reason, then the usage in a
      // chunk without choices, only when the client asked for it (`stream_options.include_usage`).
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta: unknown, finish: string | null = null) => send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
      const words = (turn.text ?? '').match(/\s+|\S+\s*/g) ?? [];
      chunk({ role: 'assistant', content: words.length ? '' : null, ...(toolCalls ? { tool_calls: toolCalls.map((c, index) => ({ index, ...c })) } : {}) });
      for (const word of words) chunk({ content: word });
      chunk({}, turn.finish);
      if (body.stream_options?.include_usage && turn.usage) send({ ...base, object: 'chat.completion.chunk', choices: [], ...usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
