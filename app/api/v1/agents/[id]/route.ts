import { agentPatchSchema } from '@/lib/schemas/agent';
import { requireUser } from '@/server/auth/require-user';
import { deleteAgent, getAgent, toApiAgent, updateAgent } from '@/server/agents/catalog';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/agents/:id */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(toApiAgent(await getAgent(user.id, id)));
});

/** PATCH /api/v1/agents/:id — change any subset of the fields. */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const patch = await readBody(req, agentPatchSchema);
  return json(toApiAgent(await updateAgent(user.id, id, patch)));
});

/** DELETE /api/v1/agents/:id — conversations with the agent stay readable. */
export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await deleteAgent(user.id, id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireUser);
