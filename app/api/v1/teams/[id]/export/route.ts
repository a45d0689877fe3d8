import { z } from 'zod';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { exportTeam } from '@/server/teams/export';
import { exportTeamZip } from '@/server/teams/export-zip';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

const exportQuerySchema = z.object({ format: z.enum(['md', 'json', 'zip']) }).strict();

/**
 * GET /api/v1/teams/:id/export?format=md|json|zip — the team as a download, streamed: each pull reads one batch of
 * jobs (server/teams/export.ts), or for zip one chunk of the archive (team.md, team.json and the workspace's files:
 * server/teams/export-zip.ts), so a slow reader holds back the reading, not the server's memory.
 */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const { format } = parseOrThrow(exportQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  const encoder = new TextEncoder();
  const doc = format === 'zip' ? await exportTeamZip(user.id, id) : await exportTeam(user.id, id, format);
  const next = async (): Promise<IteratorResult<Uint8Array>> => {
    const step = await (doc.chunks as AsyncGenerator<string | Uint8Array>).next();
    return step.done ? step : { done: false, value: typeof step.value === 'string' ? encoder.encode(step.value) : step.value };
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await next();
          if (step.done) controller.close();
          else controller.enqueue(step.value);
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
