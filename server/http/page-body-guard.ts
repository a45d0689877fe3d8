import 'server-only';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Refuses an oversized request body on a page path before Next.js reads past PAGE_BODY_LIMIT of it.
 *
 * Next copies a page request's body for proxy.ts (next.config.mjs caps the copy at proxyClientMaxBodySize, 1 MB), but
 * it then keeps reading the rest of the body, discarding it, and waits for its end before it answers: one anonymous
 * 12 MB POST to `/teams/x` made the server read all 12 MB, which sat in memory as garbage until a collection (RSS
 * +11 MB each). Nothing on a page path takes more than 1 MB: its only bodies are server actions (Next's own cap,
 * serverActions.bodySizeLimit, is 1 MB). So here, on the HTTP server itself (wrapped on its first request, as
 * server/auth/sign-in-burst-guard.ts does), a page-path request
 * - that declares more than PAGE_BODY_LIMIT bytes gets 413 with `Connection: close`, without a byte of its body read
 *   and without reaching Next (Node closes the socket once the answer is written);
 * - whose body has no declared length (chunked: what a proxy may forward for an HTTP/2 request) goes to Next as
 *   usual, its bytes counted as they arrive; the chunk that takes it past PAGE_BODY_LIMIT is not passed on, a 413 is
 *   written if nothing was answered yet, and the connection is cut as when a client aborts an upload (Next handles
 *   that: its wait for the body ends with the abort); a GET or HEAD with such a body is refused on its headers
 *   instead (Next never reads it, and Node would read it to its end after the answer, uncounted).
 * API routes are not touched: they stream their bodies against caps of their own (server/http/body.ts).
 */

/** Next's proxyClientMaxBodySize (next.config.mjs) and serverActions.bodySizeLimit: 1 MB. */
export const PAGE_BODY_LIMIT = 1024 * 1024;

const INSTALLED = Symbol.for('ensemble.pageBodyGuard');
const g = globalThis as unknown as { [INSTALLED]?: WeakSet<Server> };

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Whether Next may run proxy.ts for this request target (its matcher: every path but `/api/…` and `/_next/…`). Errs
 * towards yes: a target Next would not send through the proxy but this calls a page (an absolute-form URL, an
 * encoded prefix) is only held to the page limit, which nothing legitimate there exceeds either.
 */
export function isPageTarget(target: string): boolean {
  const path = target.split('?')[0]!;
  return !path.startsWith('/api/') && !path.startsWith('/_next/');
}

/** What to do with a request before Next sees it: refuse it (413), count its body as it arrives, or let it pass. */
export function pageBodyCheck(req: Pick<IncomingMessage, 'url' | 'headers' | 'method'>): 'refuse' | 'count' | 'pass' {
  if (!isPageTarget(req.url ?? '/')) return 'pass';
  // Node's parser already refused a request that carries both headers, or a malformed length (400).
  if (req.headers['transfer-encoding'] !== undefined) {
    // Next never reads a GET's body: Node would read it to its end after the answer, past any count kept here.
    return req.method === 'GET' || req.method === 'HEAD' ? 'refuse' : 'count';
  }
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > PAGE_BODY_LIMIT ? 'refuse' : 'pass';
}

const MESSAGE = `A page takes at most ${PAGE_BODY_LIMIT} bytes of body.`;
const HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', connection: 'close' };

/**
 * Count a body of unknown length as Node's HTTP parser hands it over (it calls the request's push() with each
 * chunk). Past the limit: answer 413 on the socket itself unless an answer went out already (Next holds the response
 * object and may still write to it; once the socket is gone those writes are dropped, as after any client abort),
 * then end the request with the error Node gives an aborted upload.
 */
function countBody(req: IncomingMessage, res: ServerResponse): void {
  let received = 0;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk instanceof Uint8Array) {
      received += chunk.length;
      if (received > PAGE_BODY_LIMIT) {
        if (!req.destroyed) {
          if (!res.headersSent && req.socket.writable) {
            const head = Object.entries({ ...HEADERS, 'content-length': Buffer.byteLength(MESSAGE) }).map(([k, v]) => `${k}: ${v}\r\n`);
            req.socket.write(`HTTP/1.1 413 Payload Too Large\r\n${head.join('')}\r\n${MESSAGE}`);
          }
          req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        }
        return false;
      }
    }
    return push(chunk, encoding);
  };
}

function guard(server: Server): void {
  const originals = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const check = pageBodyCheck(req);
    if (check === 'refuse') {
      // Not req.resume(): that would read (and discard) the whole body, which is what this guard is for. With
      // `Connection: close` Node ends the socket after this answer instead of reading on for the next request.
      res.writeHead(413, HEADERS);
      res.end(MESSAGE);
      return;
    }
    if (check === 'count') countBody(req, res);
    for (const listener of originals) listener.call(server, req, res);
  });
}

/** Guard every HTTP server of this process from its first request on. Idempotent; call once at start-up. */
export function installPageBodyGuard(): void {
  if (g[INSTALLED]) return;
  const guarded = new WeakSet<Server>();
  g[INSTALLED] = guarded;
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { server } = message as { server?: Server };
    if (!server || guarded.has(server)) return;
    guarded.add(server);
    guard(server);
  });
}
