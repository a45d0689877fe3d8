import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpConnection } from '@/server/mcp/connection';
import type { McpProgress } from '@/server/mcp/types';
import { connect, EVERYTHING, stdioSpec, until } from './support';

// server-everything over Streamable HTTP (its streamableHttp mode, on a free local port), through the product's
// client: as a deployment-wide server (the admin's, no egress rule), and as an account's own server, which the
// egress rule refuses on loopback unless the deployment allows it (MCP_EGRESS_ALLOW).

let server: ChildProcess;
let url = '';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  server.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await until(() => err.includes('listening'), 10_000, 'server-everything to listen');
  url = `http://127.0.0.1:${port}/mcp`;
});
afterAll(() => {
  server.kill();
});

const httpSpec = (ownerId: string | null) => stdioSpec([], { transport: 'http', command: null, url, ownerId, name: 'everything-http' });

describe('server-everything over Streamable HTTP (deployment-wide)', () => {
  let conn: McpConnection;
  beforeAll(() => {
    conn = connect(httpSpec(null));
  });
  afterAll(() => conn.dispose());

  it('lists tools with annotations and calls one', async () => {
    const listed = await conn.tools();
    expect(listed.status).toBe('connected');
    expect(listed.tools.find((t) => t.name === 'echo')?.annotations).toMatchObject({ readOnlyHint: true });
    expect((await conn.call('echo', { message: '世界 🎉' })).parts).toEqual([{ type: 'text', text: 'Echo: 世界 🎉' }]);
  });

  it('streams progress of a long-running operation and returns resources as references', async () => {
    const progress: McpProgress[] = [];
    await conn.call('trigger-long-running-operation', { duration: 1, steps: 3 }, { onProgress: (p) => progress.push(p) });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const res = await conn.call('get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
    const resource = res.parts.find((p) => p.type === 'resource');
    expect(resource).toMatchObject({ type: 'resource', uri: expect.stringMatching(/^demo:\/\//) });
    expect(resource && 'text' in resource ? resource.text : undefined).toBeUndefined(); // a blob is referenced, not carried
  });

  it('cancels on abort and times out, over HTTP too', async () => {
    const controller = new AbortController();
    const call = conn.call('trigger-long-running-operation', { duration: 20, steps: 20 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await expect(conn.call('trigger-long-running-operation', { duration: 10, steps: 2 }, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
  });
});

describe("an account's own HTTP server under the egress rule", () => {
  it('is refused on loopback by default, naming why', async () => {
    vi.stubEnv('MCP_EGRESS_ALLOW', '');
    const conn = connect(httpSpec('some-account'));
    try {
      const listed = await conn.tools();
      expect(listed.status).toBe('error');
      expect(listed.error).toMatch(/loopback/);
    } finally {
      await conn.dispose();
      vi.unstubAllEnvs();
    }
  });

  it('reaches loopback when the deployment allows exactly that range', async () => {
    vi.stubEnv('MCP_EGRESS_ALLOW', '127.0.0.1/32');
    const conn = connect(httpSpec('some-account'));
    try {
      expect((await conn.tools()).status).toBe('connected');
      expect((await conn.call('get-sum', { a: 2, b: 3 })).parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('5') });
    } finally {
      await conn.dispose();
      vi.unstubAllEnvs();
    }
  });
});
