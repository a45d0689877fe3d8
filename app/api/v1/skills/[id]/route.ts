import { LIMITS } from '@/lib/limits';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readJson, route } from '@/server/http/route';
import { deleteSkill, getSkill, updateSkill } from '@/server/skills/skills';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** The skill with its body. Another owner's id: 404. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(await getSkill(user.id, id));
});

/** Change its name, description or body (resource files stay); a new pack hash. */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const body = await readJson(req, LIMITS.skills.body.maxBytes * 2 + 16 * 1024);
  return json(await updateSkill(user.id, id, body));
});

/** Delete it: 409 `skill_in_use` naming the agents while any lists it. */
export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await deleteSkill(user.id, id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireUser);
