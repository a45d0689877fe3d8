import { requireUser } from '@/server/auth/require-user';
import { oneBatchView } from '@/server/batches/api';
import { retryCancelled } from '@/server/batches/control';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { wakeScheduler } from '@/server/scheduler/signal';

type Ctx = { params: Promise<{ id: string }> };

/** POST /api/v1/batches/:id/retry-cancelled — a cancelled batch's cancelled and failed items queued again; it runs again. */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const batch = await retryCancelled(user.id, id);
  wakeScheduler();
  return json({ batch: await oneBatchView(batch) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
