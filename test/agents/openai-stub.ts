import http from 'node:http';
import type { AddressInfo } from 'node:net';

type ChatMessage = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
export type StubRequest = {
  authorization: string | undefined;
  body: { model: string; stream?: boolean; stream_options?: { include_usage?: boolean }; messages: ChatMessage[]; tools?: { function: { name: string } }[] };
};

export type StubOptions = {
  /** A streamed text answer stops after this many words until `release()` (a test watches the text so far). */
  holdAfterWords?: number;
};

/** A word with the spaces after it, as providers stream text (the pieces join back exactly). */
const words = (text: string) => text.match(/\s+|\S+\s*/g) ?? [];

/**
 * A tiny OpenAI-compatible server on 127.0.0.1: the first completion asks for `calculator`, the one after a tool
 * result answers with text that quotes it. Non-streaming and streaming (SSE) both work; a stream sends the text
 * word by word, then the finish reason, then (only when asked, as OpenAI does: `stream_options.include_usage`)
 * the usage in a last chunk without choices.
 */
export async function startOpenAiStub(options: StubOptions = {}) {
  const requests: StubRequest[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(raw) as StubRequest['body'];
      requests.push({ authorization: req.headers.authorization, body });
      const toolResult = [...body.messages].reverse().find((m) => m.role === 'tool');
      const message = toolResult
        ? { role: 'assistant', content: `The answer is ${toolResult.content}.` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_stub_${requests.length}`, type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }],
          };
      const finish = toolResult ? 'stop' : 'tool_calls';
      const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
      const base = { id: `chatcmpl-${requests.length}`, created: Math.floor(Date.now() / 1000), model: body.model };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta: unknown, finishReason: string | null = null) =>
        send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
      void (async () => {
        if (message.tool_calls) {
          chunk({ role: 'assistant', content: null, tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) });
        } else {
          chunk({ role: 'assistant', content: '' });
          for (const [i, word] of words(message.content ?? '').entries()) {
            if (i === options.holdAfterWords) await held;
            chunk({ content: word });
          }
        }
        chunk({}, finish);
        if (body.stream_options?.include_usage) send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
        res.end('data: [DONE]\n\n');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Let a held stream go on. */
    release: () => release(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
