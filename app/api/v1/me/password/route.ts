import { changePasswordSchema } from '@/lib/schemas/auth';
import { clientAddress } from '@/server/auth/client-address';
import { changePassword } from '@/server/auth/password-change';
import { requireCaller } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { readBody, route } from '@/server/http/route';

/**
 * Change the caller's password (session cookie or Bearer token). The current password is required (403
 * wrong_password naming `currentPassword`, counted as a failed sign-in). Every session, the one that made this
 * call included, ends, and every API token of the account is revoked in the same write (ADR 041).
 */
export const POST = route(async (req) => {
  const caller = await requireCaller(req);
  const input = await readBody(req, changePasswordSchema);
  await changePassword(caller, input, clientAddress(req.headers));
  return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireCaller);
