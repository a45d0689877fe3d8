import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { readSkillFile } from '@/server/skills/skills';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; path: string[] }> };

/** A skill's file as text in JSON (`SKILL.md` is its body): `{ skillId, path, text }`. Another owner's skill: 404. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, path } = await ctx.params;
  const file = await readSkillFile(user.id, id, path.join('/'));
  return json({ skillId: file.skill.id, path: file.path, text: file.text });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
