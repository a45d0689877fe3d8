import { createStateEntrySchema } from '@/lib/schemas/team-state';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { createPersonEntry } from '@/server/teams/person-state';
import { listStateForApi } from '@/server/teams/state';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** The team's public state, archived entries included: `{ revision, entries }`. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(await listStateForApi(user.id, id));
});

/** `{ requestId, kind, title, content }`: add an entry as the person (201; the same requestId again: 200, same entry). */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, createStateEntrySchema);
  const { entry, created } = await createPersonEntry(user.id, id, input);
  return json({ entry }, { status: created ? 201 : 200 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
