import { setModelPriceSchema } from '@/lib/schemas/prices';
import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { listPrices, setPrice } from '@/server/providers/prices';
import { refuseQuery } from '@/server/http/query';

/** Every model's prices per million tokens, in US dollars as decimal strings (ADR 048). */
export const GET = route(async (req) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json({ prices: await listPrices() }, { headers: { 'cache-control': 'no-store' } });
});

/**
 * Set one model's prices: `{ model, inputPerMillion, outputPerMillion }`, each a decimal string or null (unknown).
 * Both null forgets the model's prices (`{ price: null }`). Applies to runs that finish from now on.
 */
export const PUT = route(async (req) => {
  await requireAdmin(req);
  const input = await readBody(req, setModelPriceSchema);
  return json({ price: await setPrice(input) }, { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT }, requireAdmin);
