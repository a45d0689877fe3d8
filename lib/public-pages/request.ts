import type { IncomingMessage, ServerResponse } from 'node:http';
import { AUTH_FLASH_COOKIE, decodeAuthFlash, type AuthForm } from '@/lib/auth/form-flash';
import type { AuthFormState } from '@/lib/types/auth-forms';

/** A query parameter's first value. */
export const queryText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Only the request's cookies: all a page needs to know who is visiting. */
export const cookieHeaders = (req: IncomingMessage) => new Headers({ cookie: req.headers.cookie ?? '' });

function appendSetCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...list, cookie]);
}

/**
 * The refused attempt the form's route handler sent this page (lib/auth/form-flash.ts), read once: the cookie is
 * cleared in the same answer, so a reload shows a fresh form. {} when there is none for this form.
 */
export function takeAuthFlash(req: IncomingMessage & { cookies?: Partial<Record<string, string>> }, res: ServerResponse, form: AuthForm): AuthFormState {
  const raw = req.cookies?.[AUTH_FLASH_COOKIE];
  if (raw === undefined) return {};
  appendSetCookie(res, `${AUTH_FLASH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  return decodeAuthFlash(raw, form) ?? {};
}

/** These pages differ per visitor (signed in or not, an error shown once): no cache may keep them. */
export function privatePage(res: ServerResponse): void {
  res.setHeader('cache-control', 'private, no-store');
}
