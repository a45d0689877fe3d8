import { createTokenSchema } from '@/lib/schemas/auth';
import { requireUser } from '@/server/auth/require-user';
import { createApiToken, listApiTokens, tokenView } from '@/server/auth/tokens';
import { json, readBody, route } from '@/server/http/route';

/** The caller's active API tokens (never the tokens themselves). */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  return json({ tokens: listApiTokens(user.id).map(tokenView) });
});

/** Create a token; the response is the only time its plain value is shown. */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const { name } = await readBody(req, createTokenSchema);
  const { token, info } = createApiToken(user.id, name);
  return json({ ...tokenView(info), token }, { status: 201, headers: { 'cache-control': 'no-store' } });
});
