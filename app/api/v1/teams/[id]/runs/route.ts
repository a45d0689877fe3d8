import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseRunsWindow, teamRuns } from '@/server/teams/runs-timeline';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/teams/:id/runs?from=ISO&to=ISO — the runs timeline of a window (default the last 24 h; docs/api.md). */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const window = parseRunsWindow(Object.fromEntries(new URL(req.url).searchParams));
  return json(await teamRuns(user.id, id, window), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
