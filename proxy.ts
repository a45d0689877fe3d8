import { NextResponse, type NextRequest } from 'next/server';
import { NONCE_HEADER, REQUEST_PATH_HEADER } from '@/lib/request-path';

/**
 * The page Content-Security-Policy (docs/decisions/010). Scripts run only with this request's nonce ('strict-dynamic'
 * lets those scripts load Next's chunks); no 'unsafe-inline' scripts. Inline style attributes React writes need
 * style-src 'unsafe-inline' — accepted: the rule is about scripts. `next dev` also needs 'unsafe-eval'.
 */
export function contentSecurityPolicy(nonce: string, dev = process.env.NODE_ENV === 'development'): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * For every page: a fresh nonce and the CSP that names it, on the request (Next reads the nonce from the request's
 * CSP header and puts it on its own scripts; the root layout reads NONCE_HEADER for next-themes' script) and on the
 * response. It also tells server layouts which page was requested (for the sign-in callbackUrl). This is not an
 * authorization boundary and checks nothing: every layout, page, action and route handler resolves the user itself.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const csp = contentSecurityPolicy(nonce);
  const forwarded = new Headers(request.headers);
  forwarded.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  forwarded.set(NONCE_HEADER, nonce);
  forwarded.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: forwarded } });
  response.headers.set('content-security-policy', csp);
  return response;
}

export const config = {
  // Every path but the API and Next's assets. API routes get their static headers from next.config.mjs and must
  // stay out: Next copies a request body for the proxy, which would defeat their streaming body cap. A dot in a path
  // does not make it a file (`/teams/a.b` is a page); the app's few metadata files (icon.svg) get the CSP too, which
  // costs nothing.
  matcher: ['/((?!api/|_next/).*)'],
};
