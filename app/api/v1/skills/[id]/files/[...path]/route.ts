import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { readSkillFile } from '@/server/skills/skills';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; path?: string[] | string }> };

/** A skill's file as text in JSON (`SKILL.md` is its body): `{ skillId, path, text }`. Another owner's skill: 404. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id, path } = await ctx.params;
  // Next gives a catch-all's segments as a list; a missing or odd value is a path no skill holds (404).
  const file = await readSkillFile(user.id, id, Array.isArray(path) ? path.join('/') : typeof path === 'string' ? path : '');
  return json({ skillId: file.skill.id, path: file.path, text: file.text });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
