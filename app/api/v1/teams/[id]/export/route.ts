import { z } from 'zod';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { exportTeam } from '@/server/teams/export';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

const exportQuerySchema = z.object({ format: z.enum(['md', 'json']) }).strict();

/**
 * GET /api/v1/teams/:id/export?format=md|json — the team as a download, streamed: each pull reads one batch of
 * jobs (server/teams/export.ts), so a slow reader holds back the reading, not the server's memory.
 */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const { format } = parseOrThrow(exportQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  const doc = await exportTeam(user.id, id, format);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await doc.chunks.next();
          if (step.done) controller.close();
          else controller.enqueue(encoder.encode(step.value));
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        await doc.chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    headers: {
      'content-type': doc.contentType,
      'content-disposition': doc.contentDisposition,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
