import './next-auth';
import { NextRequest } from 'next/server';

/** Drives next-auth's real HTTP endpoints (the route the browser and scripts use), as a client would. */

const ORIGIN = 'http://localhost';

export type Attempt = { email: string; password: string; address?: string; callbackUrl?: string; origin?: string };

const route = () => import('@/app/api/auth/[...nextauth]/route');

/** "name=value; name2=value2" from a response's Set-Cookie headers (expired cookies left out). */
export function cookiesFrom(res: Response): string {
  return res.headers
    .getSetCookie()
    .filter((c) => !/expires=Thu, 01 Jan 1970/i.test(c))
    .map((c) => c.split(';')[0])
    .join('; ');
}

export function sessionCookieFrom(res: Response): string | null {
  const cookie = cookiesFrom(res)
    .split('; ')
    .find((c) => /^(__Secure-)?authjs\.session-token=/.test(c));
  return cookie ?? null;
}

/** GET /api/auth/csrf then POST /api/auth/callback/credentials, through the exported route handlers. */
export async function postCredentials(
  { email, password, address, callbackUrl = '/agents', origin = ORIGIN }: Attempt,
  post?: (req: NextRequest) => Promise<Response>,
): Promise<Response> {
  const { GET, POST } = await route();
  const forwarded: Record<string, string> = address ? { 'x-forwarded-for': address } : {};
  const csrf = await GET(new NextRequest(`${origin}/api/auth/csrf`, { headers: forwarded }));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return (post ?? POST)(
    new NextRequest(`${origin}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { ...forwarded, 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesFrom(csrf) },
      body: new URLSearchParams({ email, password, csrfToken, callbackUrl }),
    }),
  );
}

/** Sign in over HTTP and return the session cookie ("authjs.session-token=…"); throws if it didn't work. */
export async function signInOverHttp(attempt: Attempt): Promise<string> {
  const res = await postCredentials(attempt);
  const cookie = sessionCookieFrom(res);
  if (res.status !== 302 || !cookie) throw new Error(`sign-in failed: ${res.status} ${res.headers.get('location')}`);
  return cookie;
}

/** next-auth's own session endpoint: runs the jwt callback (and its session-version check). */
export async function sessionFor(cookie: string, origin = ORIGIN): Promise<unknown> {
  const { GET } = await route();
  const res = await GET(new NextRequest(`${origin}/api/auth/session`, { headers: { cookie } }));
  return res.json();
}
