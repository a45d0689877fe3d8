import { updateStateEntrySchema } from '@/lib/schemas/team-state';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { staleEditBody, updatePersonEntry } from '@/server/teams/person-state';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; entryId: string }> };

/**
 * `{ expectedRevision, title?, content?, status? }`: edit, archive or restore an entry as the person. A stale
 * expectedRevision is 409 `state_conflict` with the current `entry`; nothing is overwritten.
 */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, entryId } = await ctx.params;
  const input = await readBody(req, updateStateEntrySchema);
  const result = await updatePersonEntry(user.id, id, entryId, input);
  return result.updated ? json({ entry: result.entry }) : json(staleEditBody(result.entry), { status: 409 });
});

export const { GET, POST, PUT, DELETE, HEAD, OPTIONS } = otherMethods({ PATCH }, requireUser);
