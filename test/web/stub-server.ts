import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * A local web server for the web tool tests: each path answers one kind of page (see `routes`). It listens on
 * 127.0.0.2, which the tests allow through EGRESS_ALLOW, so that the other loopback addresses (127.0.0.1, ::1) stay
 * refused and a redirect to them shows the egress rule at work. `requests` records every path it was asked for, and
 * `closed` how many of its connections ended (a capped read must not keep reading).
 */
export const ARTICLE = fs.readFileSync(path.join(__dirname, 'fixtures/article.html'), 'utf8');

export type Stub = { base: string; host: string; port: number; requests: string[]; close: () => Promise<void> };

/** A body of exactly `bytes` UTF-8 bytes made of one repeated character (ASCII 1 byte, CJK 3, emoji 4). */
export function bodyOf(kind: 'ascii' | 'cjk' | 'emoji', bytes: number): string {
  const unit = kind === 'ascii' ? 'a' : kind === 'cjk' ? '界' : '😀';
  const size = Buffer.byteLength(unit);
  if (bytes % size !== 0) throw new Error(`${bytes} is not a whole number of ${kind} characters`);
  return unit.repeat(bytes / size);
}

export async function startStub(address = '127.0.0.2', extra: Record<string, http.RequestListener> = {}): Promise<Stub> {
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push(url.pathname + url.search);
    const route = extra[url.pathname] ?? routes[url.pathname];
    if (route) return route(req, res);
    const chain = url.pathname.match(/^\/chain\/(\d+)$/);
    if (chain) {
      const n = Number(chain[1]);
      if (n === 0) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('end of the chain');
      return void res.writeHead(302, { location: `/chain/${n - 1}` }).end();
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const port = (server.address() as AddressInfo).port;
  const name = address.includes(':') ? `[${address}]` : address;
  return {
    base: `http://${name}:${port}`,
    host: `${name}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const routes: Record<string, http.RequestListener> = {
  '/article': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
  '/bytes': (req, res) => {
    const url = new URL(req.url!, 'http://stub');
    const body = bodyOf(url.searchParams.get('kind') as 'ascii', Number(url.searchParams.get('n')));
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
  },
  // Sends a byte every 100 ms, for ever: only the fetch's own time cap ends it.
  '/trickle': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('x'), 100);
    res.on('close', () => clearInterval(timer));
  },
  // Answers headers only after 10 s.
  '/silent': (_req, res) => {
    const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'), 10_000);
    res.on('close', () => clearTimeout(timer));
  },
  // An endless body: 64 KiB chunks for as long as the reader reads.
  '/endless': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'z');
    const pump = () => {
      while (res.write(chunk)) if (res.destroyed) return;
    };
    res.on('drain', pump);
    pump();
  },
  '/redirect': (req, res) => {
    const to = new URL(req.url!, 'http://stub').searchParams.get('to')!;
    res.writeHead(302, { location: to }).end();
  },
  '/loop-a': (_req, res) => res.writeHead(301, { location: '/loop-b' }).end(),
  '/loop-b': (_req, res) => res.writeHead(307, { location: '/loop-a' }).end(),
  '/pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7 not read'),
  '/untyped': (_req, res) => {
    res.removeHeader('content-type');
    res.writeHead(200).end('no type');
  },
  '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"b":[1,2],"a":{"c":"界😀"}}'),
  '/problem': (_req, res) => res.writeHead(200, { 'content-type': 'application/problem+json; charset=utf-8' }).end('{"title":"x"}'),
  '/markdown': (_req, res) => res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Notes\n\n- one\n- two'),
  // 20 MB of text that travels as about 20 KB of gzip: what counts is what it inflates to.
  '/gzip-bomb': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipBomb()),
  '/private-data': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('SECRET-INTERNAL-DATA'),
};

let bomb: Buffer | undefined;
export const gzipBomb = () => (bomb ??= zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a')));
