import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it. */
export type ProviderRequest = { body: Record<string, unknown> & { stream?: boolean; stream_options?: { include_usage?: boolean } } };

/**
 * What the server answers one request with: an HTTP error (status, JSON body, headers); a JSON completion; or an
 * SSE stream of `data:` items, which may stop with `break` (the socket is destroyed mid-stream) or `close` (the
 * response ends cleanly, without `[DONE]`) — `[DONE]` ends any other stream.
 */
export type ProviderReply =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { json: unknown }
  | { sse: unknown[]; break?: true; close?: true };

/**
 * An OpenAI-compatible server on 127.0.0.1 whose every answer the test decides (`reply` is called per request with
 * its number, from 1). Unlike the other stubs it can send any chunk shape, fail, break a stream, and reuse ids.
 */
export async function startSseProvider(reply: (request: ProviderRequest, n: number) => ProviderReply | Promise<ProviderReply>) {
  const requests: ProviderRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const request: ProviderRequest = { body: JSON.parse(raw || '{}') };
        requests.push(request);
        const answer = await reply(request, requests.length);
        if ('status' in answer) {
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
        } else if ('json' in answer) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
        } else {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const item of answer.sse) res.write(`data: ${JSON.stringify(item)}\n\n`);
          if (answer.break) {
            // Let the written chunks reach the client, then cut the connection without ending the response.
            await new Promise((resolve) => setTimeout(resolve, 20));
            res.destroy();
          } else res.end(answer.close ? undefined : 'data: [DONE]\n\n');
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A completion chunk with one choice. */
export const chunk = (id: string | undefined, delta: Record<string, unknown>, finish: string | null = null) => ({
  ...(id === undefined ? {} : { id }),
  object: 'chat.completion.chunk',
  created: 1,
  model: 'stub',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A text answer streamed word by word; `role`: whether the first delta names it (the wire format lets it go). */
export function textStream(text: string, options: { id?: string; role?: boolean; usage?: { prompt_tokens: number; completion_tokens: number } } = {}): unknown[] {
  const words = text.match(/\s+|\S+\s*/g) ?? [];
  const id = options.id ?? 'chatcmpl-x';
  return [
    ...words.map((word, i) => chunk(id, { ...(i === 0 && options.role ? { role: 'assistant' } : {}), content: word })),
    chunk(id, {}, 'stop'),
    ...(options.usage ? [{ id, object: 'chat.completion.chunk', created: 1, model: 'stub', choices: [], usage: { ...options.usage, total_tokens: options.usage.prompt_tokens + options.usage.completion_tokens } }] : []),
  ];
}

/** A JSON (non-streamed) text completion. */
export const textCompletion = (text: string, id = 'chatcmpl-x') => ({
  id,
  object: 'chat.completion',
  created: 1,
  model: 'stub',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
});
