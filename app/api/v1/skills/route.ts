import { LIMITS } from '@/lib/limits';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readJson, route } from '@/server/http/route';
import { createSkill, listSkills } from '@/server/skills/skills';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';

/** The caller's skills, by name: name, description, pack hash and resource files (not their bodies). */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json(await listSkills(user.id));
});

/** Write a skill: `{ name, description, body }` (a body may be up to LIMITS.skills.body, past the usual 64 KiB body). */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const body = await readJson(req, LIMITS.skills.body.maxBytes * 2 + 16 * 1024);
  return json(await createSkill(user.id, body), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
