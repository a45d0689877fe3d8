import { AUTH_FLASH_COOKIE, decodeAuthFlash, type AuthForm } from '@/lib/auth/form-flash';
import type { AuthFormState } from '@/lib/types/auth-forms';
import { scope } from './request-scope';

/**
 * Posts to the account forms' route handlers (app/(auth)/…/submit/route.ts) as a browser's plain HTML form does:
 * same-origin, application/x-www-form-urlencoded. The request's headers are also what next-auth's signIn reads
 * (request-scope.ts), as in Next. Use with request-scope's mocks in place.
 */
export const ORIGIN = 'http://localhost';
const FORM_TYPE = 'application/x-www-form-urlencoded';

export type Posted = {
  res: Response;
  status: number;
  location: string | null;
  /** The flash cookie's Set-Cookie line, if any. */
  flashCookie: string | undefined;
  /** What the page would show from the flash cookie (null when none, or cleared). */
  flash: AuthFormState | null;
};

const routeOf = (form: AuthForm) =>
  form === 'sign-in' ? import('@/app/(auth)/sign-in/submit/route') : import('@/app/(auth)/sign-up/submit/route');

export function formRequest(form: AuthForm, body: BodyInit | null, headers: Record<string, string> = {}, method = 'POST'): Request {
  return new Request(`${ORIGIN}/${form}/submit`, { method, headers, body, ...(body ? { duplex: 'half' } : {}) } as RequestInit);
}

/** The route's answer to `req`, as a page would read it. */
export async function send(form: AuthForm, req: Request): Promise<Posted> {
  scope.headers = new Headers(req.headers);
  const route = await routeOf(form);
  const handler = route[req.method as 'POST' | 'GET' | 'PUT'];
  const res = await handler(req as never);
  const flashCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${AUTH_FLASH_COOKIE}=`));
  const value = flashCookie?.split(';')[0]!.slice(AUTH_FLASH_COOKIE.length + 1);
  return { res, status: res.status, location: res.headers.get('location'), flashCookie, flash: decodeAuthFlash(value, form) };
}

/** A form post from this app's page: Origin is the app, the fields url-encoded. */
export function post(form: AuthForm, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Posted> {
  return send(form, formRequest(form, new URLSearchParams(fields).toString(), { origin: ORIGIN, 'content-type': FORM_TYPE, ...headers }));
}
