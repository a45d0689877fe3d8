import { requireUser } from '@/server/auth/require-user';
import { cancel } from '@/server/agents/runs';
import { runView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';

type Ctx = { params: Promise<{ id: string }> };

/** POST /api/v1/runs/:id/cancel — stop the run (checkpoints kept); a finished run is returned unchanged. */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json({ run: runView(await cancel(user.id, id)) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
