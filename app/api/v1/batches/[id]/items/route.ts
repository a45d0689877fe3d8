import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { oneOfParam, wholeNumberParam } from '@/lib/schemas/common';
import { BATCH_ITEM_STATUSES } from '@/lib/types/batch';
import { requireUser } from '@/server/auth/require-user';
import { listItems, parseCursor } from '@/server/batches/store';
import { batchItemViews } from '@/server/batches/api';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

const itemsQuery = z.strictObject({
  status: oneOfParam(BATCH_ITEM_STATUSES).optional(),
  cursor: z.string().optional(),
  limit: wholeNumberParam(1, LIMITS.batch.page.max).optional(),
});

/** GET /api/v1/batches/:id/items?status&cursor&limit — the items in index order, a keyset page, optionally of one status. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const query = parseOrThrow(itemsQuery, Object.fromEntries(new URL(req.url).searchParams));
  const page = await listItems(user.id, id, { status: query.status, cursor: parseCursor(query.cursor), limit: query.limit ?? LIMITS.batch.page.default });
  return json({ items: await batchItemViews(page.items), nextCursor: page.nextCursor });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
