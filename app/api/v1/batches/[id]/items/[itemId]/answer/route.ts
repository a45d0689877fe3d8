import { respondSchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { answerItem } from '@/server/batches/answer';
import { batchItemView } from '@/server/batches/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; itemId: string }> };

/**
 * POST /api/v1/batches/:id/items/:itemId/answer — answer a waiting item's question (`answer`, text) or approval or other
 * interrupt (`response`, JSON), as a team request is answered. The item is queued again and resumes in its turn.
 */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, itemId } = await ctx.params;
  const input = await readBody(req, respondSchema);
  return json({ item: batchItemView(await answerItem(user.id, id, itemId, input)) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
