import { createAccountSchema } from '@/lib/schemas/admin';
import { requireAdmin } from '@/server/admin/access';
import { createAccount, listAccounts } from '@/server/admin/accounts';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** Every account with its usage (admins only; anyone else gets 404). */
export const GET = route(async (req) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json({ users: await listAccounts() });
});

/** Create an account with an initial password, whether or not sign-up is open. */
export const POST = route(async (req) => {
  await requireAdmin(req);
  const input = await readBody(req, createAccountSchema);
  return json(await createAccount(input), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireAdmin);
