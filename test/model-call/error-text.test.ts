import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { modelCallErrorText } from '@/server/agents/model-call/error-text';
import { chatModelFor } from '@/server/agents/providers';

/** A port nothing listens on (a server opened and closed again). */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('the message a failed model call shows', () => {
  it('an Ollama server nobody answers at says why, not a bare "fetch failed"', async () => {
    const model = chatModelFor({ kind: 'ollama', baseUrl: `http://127.0.0.1:${await closedPort()}` }, 'llama3.2');
    const error = await model.invoke([new HumanMessage('Hi')]).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    expect(modelCallErrorText(error)).toBe('Could not connect to the model provider (ECONNREFUSED).');
  });

  it("keeps any other message as the provider wrote it (only LangChain's troubleshooting line is dropped)", () => {
    expect(modelCallErrorText(new Error('404 model "x" not found, try pulling it first'))).toBe('404 model "x" not found, try pulling it first');
    expect(modelCallErrorText(Object.assign(new Error('fetch failed'), { cause: new Error('no code here') }))).toBe('fetch failed');
  });

  it("an Anthropic error says the API's message, not its JSON body", async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const model = chatModelFor({ kind: 'anthropic', apiKey: 'sk-wrong', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, 'claude-test');
      const error = await model.invoke([new HumanMessage('Hi')]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(modelCallErrorText(error)).toBe('401 invalid x-api-key');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a server answering with an HTML page (a wrong base URL) says so instead of quoting the page', async () => {
    const page = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(404, { 'content-type': 'text/html' }).end(page));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const model = chatModelFor({ kind: 'openai', apiKey: 'sk-x', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }, 'gpt-x');
      const error = await model.invoke([new HumanMessage('Hi')]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(modelCallErrorText(error)).toBe("404: the server answered with a web page, not the provider's API (check the provider's base URL)");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
