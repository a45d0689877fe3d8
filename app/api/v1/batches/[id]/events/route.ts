import { requireUser } from '@/server/auth/require-user';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { oneBatchView } from '@/server/batches/api';
import { getBatch } from '@/server/batches/store';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { batchEventStream } from '@/server/push/batch-stream';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** Live updates of one batch (text/event-stream): `batch` events with its status and counts; docs/api.md "Batches". */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  await getBatch(user.id, id);
  return batchEventStream({
    accountId: user.id,
    batchId: id,
    signal: req.signal,
    request: req,
    signedIn: stillSignedIn(req, user.id),
    read: async () => oneBatchView(await getBatch(user.id, id)),
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
