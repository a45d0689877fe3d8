import { z } from 'zod';
import { BATCH_EXPORT_FORMATS } from '@/lib/schemas/batch';
import { oneOfParam } from '@/lib/schemas/common';
import { requireUser } from '@/server/auth/require-user';
import { exportBatch } from '@/server/batches/export';
import { downloadResponse } from '@/server/http/download';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

const exportQuery = z.strictObject({ format: oneOfParam(BATCH_EXPORT_FORMATS) });

/** GET /api/v1/batches/:id/export?format=jsonl|csv — the items as a download, streamed one page per pull. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const { format } = parseOrThrow(exportQuery, Object.fromEntries(new URL(req.url).searchParams));
  const doc = await exportBatch(user.id, id, format);
  return downloadResponse(doc);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
