import 'server-only';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Refuses an oversized request body on a page path before Next.js reads any of it.
 *
 * Next copies a page request's body for proxy.ts (next.config.mjs caps the copy at proxyClientMaxBodySize, 1 MB), but
 * it then keeps reading the rest of the body, discarding it, and waits for its end before it answers: one anonymous
 * 12 MB POST to `/teams/x` made the server read all 12 MB, which sat in memory as garbage until a collection (RSS
 * +11 MB each). Nothing on a page path takes more than 1 MB: its only bodies are server actions (Next's own cap,
 * serverActions.bodySizeLimit, is 1 MB), and a browser always sends those with their length (a fetch of a string or
 * FormData, or a form post). So here, on the HTTP server itself (wrapped on its first request, as
 * server/auth/sign-in-burst-guard.ts does), a page-path request that declares more than PAGE_BODY_LIMIT bytes gets 413
 * and one that sends a body of unknown length (chunked) gets 411, each with `Connection: close` and without a
 * byte of its body read: Node closes the socket once the answer is written. API routes are not touched: they stream
 * their bodies against caps of their own (server/http/body.ts).
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

/** What to answer a request before Next sees it: 411, 413, or nothing (it passes). */
export function pageBodyRefusal(req: Pick<IncomingMessage, 'url' | 'headers'>): 411 | 413 | null {
  if (!isPageTarget(req.url ?? '/')) return null;
  // Node's parser already refused a request that carries both headers, or a malformed length (400).
  if (req.headers['transfer-encoding'] !== undefined) return 411;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > PAGE_BODY_LIMIT ? 413 : null;
}

const MESSAGES = {
  411: 'A page takes no body of unknown length: send Content-Length.',
  413: `A page takes at most ${PAGE_BODY_LIMIT} bytes of body.`,
} as const;

function guard(server: Server): void {
  const originals = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refusal = pageBodyRefusal(req);
    if (refusal === null) {
      for (const listener of originals) listener.call(server, req, res);
      return;
    }
    // Not req.resume(): that would read (and discard) the whole body, which is what this guard is for. With
    // `Connection: close` Node ends the socket after this answer instead of reading on for the next request.
    res.writeHead(refusal, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
    res.end(MESSAGES[refusal]);
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
