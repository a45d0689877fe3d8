import { runEventsQuerySchema } from '@/lib/schemas/run-events';
import { requireUser } from '@/server/auth/require-user';
import { runEventsPage } from '@/server/agents/observe/read';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/runs/:id/events?after=SEQ&limit=1..200 — the run's events after SEQ, oldest first (docs/api.md). */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const query = parseOrThrow(runEventsQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  return json(await runEventsPage(user.id, id, query), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
