import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { modelCatalog } from '@/server/providers/model-catalog';
import { refuseQuery } from '@/server/http/query';

/** The providers and their cached model lists, for the agent form's Model picker: any signed-in person, no URLs or keys. */
export const GET = route(async (req) => {
  await requireUser(req);
  refuseQuery(req);
  return json(await modelCatalog(), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
