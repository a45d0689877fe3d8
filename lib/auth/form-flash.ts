import { LIMITS } from '@/lib/limits';
import type { AuthFormState } from '@/lib/types/auth-forms';

/**
 * What a refused sign-in or sign-up shows on the page it returns to (ADR 062). The account pages ship no JavaScript,
 * so their forms post to a route handler, which answers a refusal with 303 back to the page and this short-lived
 * cookie: the message, the field errors and what was typed (never the password). The page reads it once and clears
 * it. It holds only text the page shows as text; anything malformed, too large or meant for the other form is
 * ignored.
 */
export const AUTH_FLASH_COOKIE = 'ensemble-auth-flash';
/** Long enough for the redirect that follows at once, short enough not to greet a later visit. */
export const AUTH_FLASH_MAX_AGE_SECONDS = 60;
/** Browsers keep cookies up to about 4 KB; past this the typed values are dropped, the errors kept. */
export const AUTH_FLASH_MAX_BYTES = 3800;

export type AuthForm = 'sign-in' | 'sign-up';

const MESSAGE_MAX_CHARS = 500;
const FIELDS = ['email', 'password', 'name'] as const;
// A refused value may be over its limit (that can be the refusal): keep up to twice it, so the person sees what they typed.
const VALUE_MAX_CHARS = { email: 2 * LIMITS.user.email.maxChars, name: 2 * LIMITS.user.name.maxChars } as const;

const cut = (text: string, max: number) => Array.from(text).slice(0, max).join('');
const isText = (value: unknown): value is string => typeof value === 'string';

function bounded(state: AuthFormState): AuthFormState {
  const out: AuthFormState = {};
  if (isText(state.message)) out.message = cut(state.message, MESSAGE_MAX_CHARS);
  const fields = Object.fromEntries(
    FIELDS.flatMap((f) => (isText(state.fields?.[f]) ? [[f, cut(state.fields[f], MESSAGE_MAX_CHARS)]] : [])),
  );
  if (Object.keys(fields).length) out.fields = fields;
  const values: NonNullable<AuthFormState['values']> = {};
  if (isText(state.values?.email)) values.email = cut(state.values.email, VALUE_MAX_CHARS.email);
  if (isText(state.values?.name)) values.name = cut(state.values.name, VALUE_MAX_CHARS.name);
  if (Object.keys(values).length) out.values = values;
  return out;
}

/** The cookie's value for a refused attempt of `form`: bounded, and without the typed values if still too large. */
export function encodeAuthFlash(form: AuthForm, state: AuthFormState): string {
  const encode = (s: AuthFormState) => Buffer.from(JSON.stringify({ form, state: s }), 'utf8').toString('base64url');
  const full = encode(bounded(state));
  if (full.length <= AUTH_FLASH_MAX_BYTES) return full;
  return encode(bounded({ ...state, values: undefined }));
}

/** The state a page shows for the cookie's value, or null when there is none for this form. Never throws. */
export function decodeAuthFlash(raw: string | undefined, form: AuthForm): AuthFormState | null {
  if (!raw || raw.length > AUTH_FLASH_MAX_BYTES) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { form: target, state } = parsed as { form?: unknown; state?: unknown };
    if (target !== form || typeof state !== 'object' || state === null) return null;
    return bounded(state as AuthFormState);
  } catch {
    return null;
  }
}
