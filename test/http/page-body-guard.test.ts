import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { unstable_doesMiddlewareMatch } from 'next/experimental/testing/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '@/proxy';
import { installPageBodyGuard, isPageTarget, PAGE_BODY_LIMIT } from '@/server/http/page-body-guard';

// A real Node HTTP server standing in for `next start`: its handler reads every body to its end, as Next does for a
// page request, and records what reached it (the bytes it got, and whether the body ended or was cut off). The
// server side of each connection reports how many bytes it read.
let server: http.Server;
let port: number;
const handled: string[] = [];
const received: { bytes: number; ended: 'end' | 'aborted' | null }[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  installPageBodyGuard();
  server = http.createServer((req, res) => {
    handled.push(`${req.method} ${req.url}`);
    const seen = { bytes: 0, ended: null as 'end' | 'aborted' | null };
    received.push(seen);
    req.on('data', (chunk: Buffer) => (seen.bytes += chunk.length));
    req.on('end', () => {
      seen.ended = 'end';
      res.end(String(seen.bytes));
    });
    req.on('error', () => (seen.ended = 'aborted'));
  });
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

type Outcome = { status: number | null; body: string; serverRead: number };

/**
 * Send `total` bytes to `path` (chunked unless `length` is given) as fast as the server takes them; settles when the
 * server answered and the connection closed, or the connection broke. With `total` 0 only the headers go out, and the
 * body waits for an answer that never asks for it. Reports how many bytes the server's socket read.
 */
function send(path: string, total: number, length?: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const connectionsBefore = sockets.length;
    const headers = length === undefined ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) };
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, agent: false });
    let status: number | null = null;
    let body = '';
    const settle = () => {
      const socket = sockets[connectionsBefore]!;
      // The server's side closes once it answered: what it read by then is all it will ever read.
      if (socket.destroyed) resolve({ status, body, serverRead: socket.bytesRead });
      else socket.once('close', () => resolve({ status, body, serverRead: socket.bytesRead }));
    };
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', settle);
      res.on('error', settle);
    });
    req.on('error', () => (status === null ? settle() : undefined));
    const chunk = Buffer.alloc(Math.min(64 * 1024, total), 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', pump);
      }
      if (req.destroyed) return;
      if (total === 0) req.flushHeaders();
      else req.end();
    };
    pump();
  });
}

describe('page body guard', () => {
  it('answers a page POST declaring 12 MB 413 on its headers, before any of its body, and never hands it to the app', async () => {
    // What must not happen: the server reading (and buffering or discarding) megabytes of an anonymous body sent to a
    // page path, where Next would keep reading past its 1 MB copy until the sender stops.
    handled.length = 0;
    const outcome = await send('/teams/a.b', 0, 12 * 1024 * 1024);
    expect(outcome.status).toBe(413);
    expect(handled).toEqual([]);
    // The headers and at most what the kernel handed over in the same reads: far below the 1 MB cap.
    expect(outcome.serverRead).toBeLessThan(256 * 1024);
  });

  it('takes a page POST declaring exactly PAGE_BODY_LIMIT bytes, and refuses one byte more unread', async () => {
    handled.length = 0;
    const atLimit = await send('/conversations/x', PAGE_BODY_LIMIT, PAGE_BODY_LIMIT);
    expect([atLimit.status, atLimit.body]).toEqual([200, String(PAGE_BODY_LIMIT)]);
    expect(handled).toEqual(['POST /conversations/x']);

    handled.length = 0;
    const past = await send('/conversations/x', 0, PAGE_BODY_LIMIT + 1);
    expect([past.status, past.body]).toEqual([413, `A page takes at most ${PAGE_BODY_LIMIT} bytes of body.`]);
    expect(handled).toEqual([]);
  });

  it('cuts a 12 MB chunked page POST off just past PAGE_BODY_LIMIT: the app gets at most the limit, then an abort', async () => {
    // What must not happen: a body of unknown length read on to its end (12 MB) because nothing declared its size.
    handled.length = 0;
    received.length = 0;
    const outcome = await send('/teams/a.b', 12 * 1024 * 1024);
    expect(handled).toEqual(['POST /teams/a.b']);
    expect(received[0]!.bytes).toBeLessThanOrEqual(PAGE_BODY_LIMIT);
    expect(received[0]!.ended).toBe('aborted');
    expect(outcome.serverRead).toBeLessThan(PAGE_BODY_LIMIT + 256 * 1024);
    // The 413 is written before the cut; a sender still writing may see the reset first.
    expect([413, null]).toContain(outcome.status);
  });

  it('takes a chunked page POST of exactly PAGE_BODY_LIMIT bytes, and answers one byte more 413', async () => {
    received.length = 0;
    const atLimit = await send('/conversations/x', PAGE_BODY_LIMIT);
    expect([atLimit.status, atLimit.body]).toEqual([200, String(PAGE_BODY_LIMIT)]);
    expect(received[0]).toEqual({ bytes: PAGE_BODY_LIMIT, ended: 'end' });

    received.length = 0;
    const past = await send('/conversations/x', PAGE_BODY_LIMIT + 1);
    // The whole body was sent before the cut, so the answer is read before the connection closes.
    expect([past.status, past.body]).toEqual([413, `A page takes at most ${PAGE_BODY_LIMIT} bytes of body.`]);
    expect(received[0]).toEqual({ bytes: PAGE_BODY_LIMIT, ended: 'aborted' });
  });

  it('refuses a GET to a page with a chunked body on its headers (Next never reads it; Node would, to its end)', async () => {
    handled.length = 0;
    const outcome = await new Promise<{ status: number; serverRead: number }>((resolve) => {
      const connectionsBefore = sockets.length;
      const req = http.request({ host: '127.0.0.1', port, path: '/teams', method: 'GET', headers: { 'transfer-encoding': 'chunked' }, agent: false });
      req.on('response', (res) => {
        res.resume().on('end', () => {
          const socket = sockets[connectionsBefore]!;
          const done = () => resolve({ status: res.statusCode ?? 0, serverRead: socket.bytesRead });
          if (socket.destroyed) done();
          else socket.once('close', done);
        });
      });
      req.flushHeaders();
    });
    expect(outcome.status).toBe(413);
    expect(handled).toEqual([]);
    expect(outcome.serverRead).toBeLessThan(1024);
  });

  it('leaves API routes to their own streaming caps: a chunked or large API body reaches the handler', async () => {
    handled.length = 0;
    const chunked = await send('/api/v1/files', 2 * PAGE_BODY_LIMIT);
    const large = await send('/api/v1/files', 2 * PAGE_BODY_LIMIT, 2 * PAGE_BODY_LIMIT);
    expect([chunked.status, chunked.body, large.status, large.body]).toEqual([200, String(2 * PAGE_BODY_LIMIT), 200, String(2 * PAGE_BODY_LIMIT)]);
    expect(handled).toEqual(['POST /api/v1/files', 'POST /api/v1/files']);
  });

  it.each([
    '/',
    '/teams/a.b',
    '/api',
    '/apix/y',
    '/%61pi/v1/agents',
    '/_nextx',
    '//api/v1/agents',
    '/teams?x=/api/',
    '/api%2Fv1/agents',
    '/Api/v1/agents',
  ])('guards %s whenever Next would run the proxy for it', (target) => {
    // What must not happen: a path Next sends through proxy.ts (copying its body) that this guard lets through.
    const proxied = unstable_doesMiddlewareMatch({ config, url: `http://localhost${target}` });
    expect({ proxied, guarded: isPageTarget(target) }).not.toEqual({ proxied: true, guarded: false });
  });
});
