import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny provider on 127.0.0.1 that answers the three model-list shapes: OpenAI-compatible `GET /v1/models`
 * (Bearer), Anthropic `GET /v1/models` (x-api-key, when called with anthropic-version) and Ollama `GET /api/tags`.
 * A wrong key gets a 401 whose message quotes the key, as some providers do, so tests can prove it is never echoed.
 */
export async function startModelListStub(key: string, models: string[]) {
  const seen: { url: string; authorization?: string; apiKey?: string }[] = [];
  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization;
    const apiKey = req.headers['x-api-key'] as string | undefined;
    seen.push({ url: req.url ?? '', authorization, apiKey });
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/api/tags') return send(200, { models: models.map((name) => ({ name, model: name, size: 1 })) });
    if (req.url?.startsWith('/v1/models')) {
      const given = req.headers['anthropic-version'] ? apiKey : authorization?.replace(/^Bearer /, '');
      if (given !== key) return send(401, { error: { message: `Incorrect API key provided: ${given}`, type: 'invalid_request_error' } });
      return send(200, { object: 'list', data: [...models].reverse().map((id) => ({ id, object: 'model' })), has_more: false });
    }
    if (req.url === '/redirect/models') return res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
    return send(404, { error: { message: 'not found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
