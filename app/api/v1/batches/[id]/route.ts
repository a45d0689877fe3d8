import { requireUser } from '@/server/auth/require-user';
import { oneBatchView } from '@/server/batches/api';
import { getBatch } from '@/server/batches/store';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/batches/:id — the batch with its counts (another owner's id: 404). */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json({ batch: await oneBatchView(await getBatch(user.id, id)) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
