import { agentCreateSchema } from '@/lib/schemas/agent';
import { requireUser } from '@/server/auth/require-user';
import { createAgent, listAgents, toApiAgent } from '@/server/agents/catalog';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** GET /api/v1/agents?query= — the caller's agents, optionally filtered by name or description. */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req, ['query']);
  const query = new URL(req.url).searchParams.get('query');
  return json({ agents: (await listAgents(user.id, query)).map(toApiAgent) });
});

/** POST /api/v1/agents — create an agent. */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const input = await readBody(req, agentCreateSchema);
  return json(toApiAgent(await createAgent(user.id, input)), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
