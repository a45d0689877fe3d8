import { createProviderSchema } from '@/lib/schemas/providers';
import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { builtinProviders } from '@/server/providers/builtins';
import { createProvider, listProviders } from '@/server/providers/store';
import { refuseQuery } from '@/server/http/query';

/** The managed providers (keys shown as ••••last4 only) and the built-in ones the environment configures. */
export const GET = route(async (req) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json({ providers: await listProviders(), builtin: builtinProviders() }, { headers: { 'cache-control': 'no-store' } });
});

/** Add a provider; its key is encrypted before it is stored and never sent back. */
export const POST = route(async (req) => {
  await requireAdmin(req);
  const input = await readBody(req, createProviderSchema);
  return json(await createProvider(input), { status: 201, headers: { 'cache-control': 'no-store' } });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireAdmin);
