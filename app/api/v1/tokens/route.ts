import { createTokenSchema } from '@/lib/schemas/auth';
import { clientAddress } from '@/server/auth/client-address';
import { confirmPassword } from '@/server/auth/confirm-password';
import { requireUser } from '@/server/auth/require-user';
import { createApiToken, listApiTokens, tokenExpiry, tokenView } from '@/server/auth/tokens';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';

/** The caller's unrevoked API tokens, expired ones marked (never the tokens themselves). */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  const now = new Date();
  return json({ tokens: (await listApiTokens(user.id)).map((info) => tokenView(info, now)) });
});

/**
 * Create a token; the response is the only time its plain value is shown. The body carries the caller's password
 * again (403 wrong_password naming `password`; a wrong one counts as a failed sign-in) and an optional lifetime.
 */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const { name, expiresInDays, password } = await readBody(req, createTokenSchema);
  await confirmPassword(user.id, password, clientAddress(req.headers), 'password');
  const { token, info } = await createApiToken(user.id, name, { expiresAt: tokenExpiry(expiresInDays) });
  return json({ ...tokenView(info), token }, { status: 201, headers: { 'cache-control': 'no-store' } });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
