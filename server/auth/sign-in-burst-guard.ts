import 'server-only';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { LIMITS } from '@/lib/limits';
import { clientAddress, PEER_HEADER } from './client-address';
import { tooManySignInsMessage } from './rate-limit';

/**
 * Refuses a burst of concurrent sign-in (and sign-up) POSTs from one address before Next.js routes them.
 *
 * The sign-in limits (rate-limit.ts) hold a flood to a handful of password checks, but every refused attempt still
 * costs Next's request handling on the one event loop; 200 attempts sent at once kept a health probe waiting for
 * seconds (docs/performance.md, bench:abuse). Here the HTTP server's own `request` listeners are wrapped, the first
 * time a request reaches a server (Node's `http.server.request.start` diagnostics channel fires before the server
 * emits `request`, so that very request already goes through the wrapper): a sign-in POST from an address that has
 * LIMITS.signIn.concurrentPerAddress of them in progress is answered 429 at once, without a body read or a database
 * query. Everything else passes straight through. A person signs in with one request at a time, so only a script
 * flooding the form meets this.
 */

/**
 * The doors that check a password: next-auth's credentials callback (scripts), the sign-in form's post, and the
 * sign-up form's post (it hashes the new password and then signs in with it). The sign-up limit per address
 * (registration.ts) holds hashes to a few an hour, but like the sign-in limits it is a database check inside Next,
 * reached only after Next's handling of the request; a burst costs that much per request. One count per address
 * across the three: a person sends one of them at a time.
 */
const GUARDED_PATHS = new Set(['/api/auth/callback/credentials', '/sign-in/submit', '/sign-up/submit']);
const INSTALLED = Symbol.for('ensemble.signInBurstGuard');
const g = globalThis as unknown as { [INSTALLED]?: { guarded: WeakSet<Server>; inFlight: Map<string, number> } };

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The path with percent-escapes decoded, so that `/sign-in/%73ubmit` counts as `/sign-in/submit` however Next routes it. */
function routedPath(target: string): string {
  const path = target.split('?')[0]!;
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // a malformed escape is no guarded path
  }
}

const isSignIn = (req: IncomingMessage) => req.method === 'POST' && GUARDED_PATHS.has(routedPath(req.url ?? ''));

function addressOf(req: IncomingMessage): string {
  const headers = new Headers();
  for (const name of ['x-forwarded-for', PEER_HEADER]) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return clientAddress(headers);
}

function guard(server: Server, inFlight: Map<string, number>): void {
  const originals = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isSignIn(req)) {
      const address = addressOf(req);
      const current = inFlight.get(address) ?? 0;
      if (current >= LIMITS.signIn.concurrentPerAddress) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'cache-control': 'no-store', connection: 'close' });
        res.end(JSON.stringify({ error: { code: 'rate_limited', message: tooManySignInsMessage(1) } }));
        req.resume(); // discard the body without buffering it
        return;
      }
      inFlight.set(address, current + 1);
      res.once('close', () => {
        const left = (inFlight.get(address) ?? 1) - 1;
        if (left > 0) inFlight.set(address, left);
        else inFlight.delete(address);
      });
    }
    for (const listener of originals) listener.call(server, req, res);
  });
}

/** Guard every HTTP server of this process from its first request on. Idempotent; call once at start-up. */
export function installSignInBurstGuard(): void {
  if (g[INSTALLED]) return;
  const state = { guarded: new WeakSet<Server>(), inFlight: new Map<string, number>() };
  g[INSTALLED] = state;
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { server } = message as { server?: Server };
    if (!server || state.guarded.has(server)) return;
    state.guarded.add(server);
    guard(server, state.inFlight);
  });
}
