import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BASE_URL, E2E_PORT, ROOT_DIR, SERVER_ENV } from './env';
import { expect, test } from './fixtures';

/**
 * Abuses tried from outside against the real server (`next start` of the e2e build), each with what must not
 * happen. Raw HTTP (node:http), not the browser: a stream must be read as it arrives and a body sent as it is
 * written.
 */

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/**
 * A server of its own (the e2e build, its own data directory and port), so the memory measured is this test's alone,
 * not the other worker's tests'. `next start` serves in its own process (titled `next-server`): that is what is
 * measured.
 */
async function ownServer(port: number): Promise<{ pid: number; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-e2e-memory-'));
  const server: ChildProcess = spawn(path.join(ROOT_DIR, 'node_modules/.bin/next'), ['start', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...SERVER_ENV, DATA_DIR: dataDir, PORT: String(port) },
    stdio: 'ignore',
  });
  const stop = async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) =>
      http.get(`http://127.0.0.1:${port}/api/health`, (res) => resolve(res.resume() && res.statusCode === 200)).on('error', () => resolve(false)),
    );
    if (ok) break;
    if (Date.now() > deadline || server.exitCode !== null) {
      await stop();
      throw new Error('the server did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { pid: server.pid!, stop };
}

/**
 * POST `total` bytes (0: the headers only), chunked unless `declared` gives a Content-Length, as fast as the server
 * takes them, and keep the request open: settles once all of it was written, or once the server answered or dropped
 * the connection (then `status` is its answer, or null when the connection broke before one arrived). `written`
 * counts what the sender got into its socket.
 */
function holdPost(url: string, total: number, declared?: number): Promise<{ req: http.ClientRequest; status: number | null; written: number }> {
  return new Promise((resolve) => {
    const length = declared === undefined ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(declared) };
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'text/plain', ...length }, agent: false });
    let status: number | null = null;
    let sent = 0;
    const settle = () => resolve({ req, status, written: sent });
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.resume().on('end', settle).on('error', settle);
    });
    req.on('error', settle);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (req.destroyed) return;
      // Nothing to send: the headers alone, and the body waits for an answer that never asks for it.
      if (total === 0) req.flushHeaders();
      else req.write('', settle);
    };
    pump();
  });
}

/** Open an event stream; resolves once its headers came, with a promise of its end (the body closed by the server). */
function openStream(path: string, token: string): Promise<{ status: number; firstData: Promise<string>; ended: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${BASE_URL}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      const firstData = new Promise<string>((r) => res.once('data', (c: string) => r(c)));
      const ended = new Promise<void>((r) => res.on('end', () => r()));
      resolve({ status: res.statusCode ?? 0, firstData, ended, close: () => req.destroy() });
    });
  });
}

test.describe('abuse matrix from outside', () => {
  /** The warm-up before a memory figure: the page path's first requests load its code and render it. */
  async function warmUp(url: string) {
    // Each is answered before the next starts (a request cut off early could leave that loading to happen during
    // the measurement). A body with its length under the page cap is what a server action sends: it reaches Next.
    for (let i = 0; i < 2; i++) await (await fetch(url, { method: 'POST', body: 'x'.repeat(64 * 1024) })).arrayBuffer();
    (await holdPost(url, 64 * 1024)).req.destroy();
  }

  test('one anonymous 12 MB chunked page POST grows the server by at most 5 MB', async () => {
    // What must not happen: the server reading an anonymous body sent to a page path to its end. Next copies 1 MB of
    // it for the proxy and keeps reading (and discarding) the rest until the sender stops; those chunks stayed in
    // memory until a collection (+11 MB for this one request). Cut off just past 1 MB, it costs about that much.
    test.setTimeout(90_000);
    const port = E2E_PORT + 18;
    const server = await ownServer(port);
    try {
      const url = `http://127.0.0.1:${port}/teams/a.b`;
      await warmUp(url);
      const before = rssKb(server.pid);
      const post = await holdPost(url, 12 * 1024 * 1024);
      const grownMb = (rssKb(server.pid) - before) / 1024;
      post.req.destroy();
      // The 413 is written before the cut; a sender still writing may see the reset first.
      expect([413, null]).toContain(post.status);
      expect(post.written, 'the sender could not get the whole body in').toBeLessThan(12 * 1024 * 1024);
      expect(grownMb, `VmRSS grew ${grownMb.toFixed(1)} MB`).toBeLessThanOrEqual(5);

      // 12 MB declared: refused on its headers, before any of the body is sent.
      const declared = await holdPost(url, 0, 12 * 1024 * 1024);
      declared.req.destroy();
      expect(declared.status).toBe(413);
      const afterBoth = (rssKb(server.pid) - before) / 1024;
      expect(afterBoth, `VmRSS grew ${afterBoth.toFixed(1)} MB`).toBeLessThanOrEqual(5);
    } finally {
      await server.stop();
    }
  });

  test('six anonymous 12 MB page POSTs held open make the server hold at most 5 MB for each', async () => {
    // What must not happen: the proxy's copy of a page request's body (Next keeps it for proxy.ts, before anything
    // authenticates the request; 10 MB by default) held in memory for as long as an anonymous sender keeps the
    // request open: six such senders pinned more than 60 MB (35 MB with the copy capped at 1 MB, as Next read on).
    test.setTimeout(120_000);
    const server = await ownServer(E2E_PORT + 17);
    try {
      const url = `http://127.0.0.1:${E2E_PORT + 17}/teams/a.b`;
      await warmUp(url);
      const before = rssKb(server.pid);
      const held = await Promise.all(Array.from({ length: 6 }, () => holdPost(url, 12 * 1024 * 1024)));
      const grownMb = (rssKb(server.pid) - before) / 1024;
      for (const post of held) post.req.destroy();
      expect(held.filter((post) => post.status !== 413 && post.status !== null)).toEqual([]);
      expect(grownMb, `VmRSS grew ${grownMb.toFixed(1)} MB`).toBeLessThanOrEqual(6 * 5);
    } finally {
      await server.stop();
    }
  });

  test('a stream opened with a token ends once that token is revoked', async ({ account, api }) => {
    // What must not happen: a stolen token, revoked by its owner, still hearing the account's changes (and its
    // models' live output) over a stream it opened before, or holding one of the account's stream slots.
    const stream = await openStream('/api/v1/teams/events', account.token);
    expect(stream.status).toBe(200);
    expect(await stream.firstData).toContain('event: teams');
    const { tokens } = (await (await api.get('/api/v1/tokens')).json()) as { tokens: { id: string }[] };
    expect(tokens).toHaveLength(1);
    expect((await api.delete(`/api/v1/tokens/${tokens[0]!.id}`)).status()).toBe(204);
    // The heartbeat is 15 s: ending within 10 s means the revocation itself ended it.
    const outcome = await Promise.race([stream.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still open'), 10_000))]);
    stream.close();
    expect(outcome).toBe('ended');
  });
});
