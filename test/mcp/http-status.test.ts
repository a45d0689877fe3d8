import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, stdioSpec } from './support';

// A Streamable HTTP server that answers with an HTTP error (a missing or wrong token, a gone endpoint): the status
// shown on the server's page says the HTTP status and what to check, not only the SDK's "Streamable HTTP error".

let server: http.Server;
let origin = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/gone') return res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'unauthorized' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const httpServer = (path: string) => connect(stdioSpec([], { transport: 'http', command: null, url: `${origin}${path}`, ownerId: null, name: 'locked' }));

describe('an MCP server over Streamable HTTP that answers with an HTTP error', () => {
  it('401: the status names the HTTP status and the headers to check', async () => {
    const conn = httpServer('/mcp');
    try {
      const status = await conn.tools();
      expect(status.status).toBe('error');
      expect(status.error).toBe('The MCP server "locked" could not be started or reached: HTTP 401 (check the headers it needs, such as Authorization): {"error":"unauthorized"}');
    } finally {
      await conn.dispose();
    }
  });

  it('404: the status names the HTTP status and the URL to check', async () => {
    const conn = httpServer('/gone');
    try {
      expect((await conn.tools()).error).toBe('The MCP server "locked" could not be started or reached: HTTP 404 (check the URL): Not Found');
    } finally {
      await conn.dispose();
    }
  });

  it("a URL on a port fetch never connects to says so, not fetch's bare 'bad port'", async () => {
    // Port 9 (discard) is on fetch's list of other protocols' ports; 8 is not: the control reaches the refusal of an
    // unanswered port instead.
    const refused = connect(stdioSpec([], { transport: 'http', command: null, url: 'http://127.0.0.1:9/mcp', ownerId: null, name: 'blocked' }));
    const control = connect(stdioSpec([], { transport: 'http', command: null, url: 'http://127.0.0.1:8/mcp', ownerId: null, name: 'open' }));
    try {
      expect((await refused.tools()).error).toBe(
        'The MCP server "blocked" could not be started or reached: its port 9 is one that fetch never connects to (reserved for another protocol); use another port',
      );
      expect((await control.tools()).error).not.toMatch(/bad port|never connects/);
    } finally {
      await refused.dispose();
      await control.dispose();
    }
  });

  it("an account's server on a refused address says the refusal, without fetch's own 'fetch failed'", async () => {
    const conn = connect(stdioSpec([], { transport: 'http', command: null, url: `${origin}/mcp`, ownerId: 'an-account', name: 'mine' }));
    try {
      expect((await conn.tools()).error).toBe('The MCP server "mine" could not be started or reached: Refused: 127.0.0.1 is a loopback address, not a public one');
    } finally {
      await conn.dispose();
    }
  });
});
