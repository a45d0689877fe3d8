import { createTokenSchema } from '@/lib/schemas/auth';
import { clientAddress } from '@/server/auth/client-address';
import { confirmPassword } from '@/server/auth/confirm-password';
import { requireCaller, requireUser } from '@/server/auth/require-user';
import { createApiToken, listApiTokens, tokenExpiry, tokenView } from '@/server/auth/tokens';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** The caller's unrevoked API tokens, expired ones marked (never the tokens themselves). */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const now = new Date();
  return json({ tokens: (await listApiTokens(user.id)).map((info) => tokenView(info, now)) });
});

/**
 * Create a token; the response is the only time its plain value is shown. The body carries the caller's password
 * again (403 wrong_password naming `password`; a wrong one counts as a failed sign-in), an optional lifetime and an
 * optional scope ('read' or 'full', the default). A password change committed meanwhile: 409 password_changed.
 */
export const POST = route(async (req) => {
  const { user, sessionVersion } = await requireCaller(req);
  const { name, expiresInDays, scope, password } = await readBody(req, createTokenSchema);
  await confirmPassword(user.id, password, clientAddress(req.headers), 'password', sessionVersion);
  const { token, info } = await createApiToken(user.id, name, { expiresAt: tokenExpiry(expiresInDays), scope, sessionVersion });
  return json({ ...tokenView(info), token }, { status: 201, headers: { 'cache-control': 'no-store' } });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
