import { NextResponse, type NextRequest } from 'next/server';
import { REQUEST_PATH_HEADER } from '@/lib/request-path';

/**
 * Tells server layouts which page was requested (they need it for the sign-in callbackUrl). This is not an
 * authorization boundary and checks nothing: every layout, page, action and route handler resolves the user itself.
 */
export function proxy(request: NextRequest) {
  const forwarded = new Headers(request.headers);
  forwarded.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.next({ request: { headers: forwarded } });
}

export const config = {
  // Pages only: API routes, Next's assets and files with an extension never need it.
  matcher: ['/((?!api/|_next/|.*\\.[a-zA-Z0-9]+$).*)'],
};
