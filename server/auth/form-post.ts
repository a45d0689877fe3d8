import 'server-only';
import { AUTH_FLASH_COOKIE, AUTH_FLASH_MAX_AGE_SECONDS, encodeAuthFlash, type AuthForm } from '@/lib/auth/form-flash';
import { safeCallbackPath } from '@/lib/schemas/auth';
import { readBodyBytes } from '@/server/http/body';
import { assertOwnOrigin } from '@/server/http/cross-site';
import { AppError } from '@/server/http/errors';
import { errorResponse } from '@/server/http/route';
import { clientAddress } from './rate-limit';
import type { FormOutcome } from './form-submissions';

/**
 * The POST side of the account pages, which ship no JavaScript (ADR 062): a plain HTML form posts
 * application/x-www-form-urlencoded here, and the answer is always a 303 that the browser follows with a GET:
 * to where the person was going once signed in, or back to the form's page with a short-lived cookie that says why
 * not (lib/auth/form-flash.ts; the page reads it once and clears it).
 *
 * In order, each before anything later is read or touched:
 * - 403 cross_site unless the post came from this app's own page (server/http/cross-site.ts assertOwnOrigin): with
 *   no session cookie to protect, what is refused here is another site signing a visitor in as someone else;
 * - 415 for any other body type: a form sends this one, and anything else is not the form;
 * - 413 past FORM_BODY_MAX_BYTES, counted as it arrives.
 */

/** Every field at its limit, each character percent-encoded at its longest (an emoji: 12 bytes), fits well under. */
export const FORM_BODY_MAX_BYTES = 16 * 1024;
/** An invitation code is 40-odd characters; a longer value is never one, so it is not carried back to the page. */
const INVITE_ECHO_MAX_CHARS = 200;

type Submit = (fields: URLSearchParams, address: string) => Promise<FormOutcome>;

const FORM_TYPE = 'application/x-www-form-urlencoded';

const unsupportedType = () =>
  new AppError(415, 'unsupported_media_type', `Send the form as ${FORM_TYPE}, as the page's form does`);

/** The page a refused attempt goes back to, keeping what the page needs to show the same form again. */
function pageFor(form: AuthForm, fields: URLSearchParams): string {
  if (form === 'sign-in') {
    const callback = safeCallbackPath(fields.get('callbackUrl'));
    return callback ? `/sign-in?${new URLSearchParams({ callbackUrl: callback })}` : '/sign-in';
  }
  const invite = fields.get('invite');
  return invite && invite.length <= INVITE_ECHO_MAX_CHARS ? `/sign-up?${new URLSearchParams({ invite })}` : '/sign-up';
}

/** Secure when the browser reached the app over https, directly or through a proxy that says so. */
function isHttps(req: Request): boolean {
  if (new URL(req.url).protocol === 'https:') return true;
  return req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

function flashCookie(req: Request, value: string, maxAge: number): string {
  const secure = isHttps(req) ? '; Secure' : '';
  return `${AUTH_FLASH_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** A relative Location: the browser resolves it against the page it posted from, whatever host a proxy put in front. */
function seeOther(location: string, cookie: string): Response {
  return new Response(null, { status: 303, headers: { location, 'set-cookie': cookie, 'cache-control': 'no-store' } });
}

/** The POST handler of one account form's route. */
export function authFormPost(form: AuthForm, submit: Submit): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      assertOwnOrigin(req);
      if (req.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() !== FORM_TYPE) throw unsupportedType();
      const fields = new URLSearchParams(new TextDecoder().decode(await readBodyBytes(req, FORM_BODY_MAX_BYTES)));
      const outcome = await submit(fields, clientAddress(req.headers));
      if ('destination' in outcome) {
        // Signed in: a message left from an earlier refusal must not greet a later visit to the form.
        return seeOther(outcome.destination, flashCookie(req, '', 0));
      }
      return seeOther(pageFor(form, fields), flashCookie(req, encodeAuthFlash(form, outcome.refused), AUTH_FLASH_MAX_AGE_SECONDS));
    } catch (err) {
      return errorResponse(err);
    }
  };
}
