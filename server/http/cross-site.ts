import 'server-only';
import { env } from '@/server/env';
import { AppError } from './errors';

/**
 * Cross-site write protection for cookie-authenticated requests (docs/decisions/010). A browser attaches the
 * session cookie to requests another site makes it send (a form post, a no-cors fetch), so a write authenticated
 * by the cookie must show that it came from this app's own pages:
 *
 * - `Origin` names this app's host (see ownHosts), or, when a browser sends no Origin, `Sec-Fetch-Site` is
 *   `same-origin`; and
 * - a write with a body says `Content-Type: application/json`, which no HTML form can send and a cross-origin
 *   fetch can't send without a CORS preflight this app never grants.
 *
 * Anything else is 403 `cross_site` before any state is read or written. Bearer-token calls never reach this
 * check: a browser never adds a token by itself. Server actions are checked by Next itself (Origin vs Host).
 */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const crossSite = (reason: string) =>
  new AppError(403, 'cross_site', `Cross-site request refused: ${reason}`);

export function isWriteMethod(method: string): boolean {
  return WRITE_METHODS.has(method.toUpperCase());
}

/**
 * The hosts (host[:port]) this app answers as. The Host header (or the first X-Forwarded-Host a reverse proxy
 * set, as Next's own server-action check reads it), the host of the URL the server parsed, and AUTH_URL's host
 * when the operator set one (a proxy that rewrites Host should set AUTH_URL). A browser can't forge these for a
 * cross-site request: it sets Host to the site it sends to, and a custom header would need a CORS preflight.
 */
export function ownHosts(req: Request): Set<string> {
  const hosts = new Set<string>([new URL(req.url).host]);
  const host = req.headers.get('host');
  if (host) hosts.add(host.trim().toLowerCase());
  const forwarded = req.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  if (forwarded) hosts.add(forwarded.toLowerCase());
  const configured = env.authUrl;
  if (configured) {
    try {
      hosts.add(new URL(configured).host);
    } catch {
      // A malformed AUTH_URL adds nothing (next-auth reports it on its own).
    }
  }
  return hosts;
}

function originHost(origin: string): string | null {
  if (origin === 'null') return null; // sandboxed frames, data: URLs, some redirects: never our own page
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** True when the request carries (or declares) a body: a Content-Type, a positive Content-Length, or chunks. */
function declaresBody(headers: Headers): boolean {
  return (
    headers.has('content-type') ||
    Number(headers.get('content-length') ?? '0') > 0 ||
    headers.has('transfer-encoding')
  );
}

/** application/json, parameters (charset) allowed; nothing else counts as JSON here. */
export function isJsonContentType(value: string | null): boolean {
  return value?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * The body types a cookie write may carry: JSON, and application/octet-stream for a file's raw bytes (the files upload
 * routes, ADR 058). Neither is CORS-safelisted, so another site's page can send neither without the preflight this app
 * never grants, and no HTML form can send either; a route that reads JSON still parses (and refuses) what it gets.
 */
export function isPreflightedBodyType(value: string | null): boolean {
  return isJsonContentType(value) || value?.split(';')[0]?.trim().toLowerCase() === 'application/octet-stream';
}

/**
 * Throw 403 cross_site unless the request says it was sent by this app's own pages: its Origin names this app, or,
 * without an Origin, Sec-Fetch-Site is same-origin. The cookie writes below check this first; the account forms'
 * posts (server/auth/form-post.ts) check only this, as a plain HTML form is what they take: there it stops another
 * site from signing a visitor in to an account of its choosing (login CSRF), which needs no session cookie at all.
 */
export function assertOwnOrigin(req: Request): void {
  const origin = req.headers.get('origin');
  if (origin !== null) {
    const host = originHost(origin);
    if (!host || !ownHosts(req).has(host)) throw crossSite('the Origin header is not this app');
  } else if (req.headers.get('sec-fetch-site') !== 'same-origin') {
    throw crossSite('no Origin header and Sec-Fetch-Site is not same-origin');
  }
}

/** Throw 403 cross_site unless this cookie-authenticated request may write (reads always may). */
export function assertSameOriginWrite(req: Request): void {
  if (!isWriteMethod(req.method)) return;
  assertOwnOrigin(req);
  if (declaresBody(req.headers) && !isPreflightedBodyType(req.headers.get('content-type'))) {
    throw crossSite('a write with a body must be Content-Type: application/json (application/octet-stream for a file upload)');
  }
}
