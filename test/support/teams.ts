import crypto from 'node:crypto';
import { agentCreateSchema } from '@/lib/schemas/agent';
import { createAgent } from '@/server/agents/catalog';
import { createTeam } from '@/server/teams/teams';

/** Create agents for an owner (scripted model by default), one after another in the order given. */
export async function makeAgents(ownerId: string, names: string[], extra: Record<string, unknown> = {}) {
  const agents = [];
  for (const name of names) agents.push(await createAgent(ownerId, agentCreateSchema.parse({ name, ...extra })));
  return agents;
}

/** A ready team of agents with the given names. */
export async function makeTeam(ownerId: string, names = ['Research', 'Review'], extra: Record<string, unknown> = {}) {
  const agents = await makeAgents(ownerId, names.map((n) => `${n}-${crypto.randomUUID().slice(0, 6)}`), extra);
  const { team } = await createTeam(ownerId, {
    requestId: crypto.randomUUID(),
    name: `Team ${crypto.randomUUID().slice(0, 6)}`,
    goal: 'Ship the thing',
    agentIds: agents.map((a) => a.id),
  });
  return { team, agents };
}

type Json = Record<string, unknown>;

/** Call a route handler the way Next does, with a JSON body and route params. */
export async function call<C>(
  handler: (req: Request, ctx: C) => Promise<Response> | Response,
  opts: { method?: string; url?: string; headers?: Record<string, string>; body?: unknown; params?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; raw: string; headers: Headers }> {
  const init: RequestInit = { method: opts.method ?? 'GET', headers: { 'content-type': 'application/json', ...opts.headers } };
  if (opts.body !== undefined) init.body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const ctx = { params: Promise.resolve(opts.params ?? {}) } as C;
  const res = await handler(new Request(opts.url ?? 'http://localhost/api/v1/x', init), ctx);
  const raw = await res.text();
  return { status: res.status, body: raw ? (JSON.parse(raw) as Json) : {}, raw, headers: res.headers };
}
