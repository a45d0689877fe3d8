import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { batchCreateSchema } from '@/lib/schemas/batch';
import { wholeNumberParam } from '@/lib/schemas/common';
import { requireUser } from '@/server/auth/require-user';
import { batchViews, oneBatchView } from '@/server/batches/api';
import { createBatch, listBatches, parseCursor } from '@/server/batches/store';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { wakeScheduler } from '@/server/scheduler/signal';

export const dynamic = 'force-dynamic';

const listQuery = z.strictObject({ cursor: z.string().optional(), limit: wholeNumberParam(1, LIMITS.batch.page.max).optional() });

/** GET /api/v1/batches?cursor&limit — the caller's batches, newest first. */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  const query = parseOrThrow(listQuery, Object.fromEntries(new URL(req.url).searchParams));
  const page = await listBatches(user.id, parseCursor(query.cursor), query.limit ?? LIMITS.batch.page.default);
  return json({ batches: await batchViews(page.batches), nextCursor: page.nextCursor });
});

/** POST /api/v1/batches — start a durable batch (201; 200 with the same batch for a repeated idempotency key). */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const input = await readBody(req, batchCreateSchema, LIMITS.batch.bodyBytes);
  const { batch, created } = await createBatch(user.id, input, { origin: 'person' });
  if (created) wakeScheduler();
  return json({ batch: await oneBatchView(batch) }, { status: created ? 201 : 200 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
