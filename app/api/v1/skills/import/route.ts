import { LIMITS } from '@/lib/limits';
import { requireUser } from '@/server/auth/require-user';
import { readBodyBytes } from '@/server/http/body';
import { AppError } from '@/server/http/errors';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { importSkillZip } from '@/server/skills/skills';

export const dynamic = 'force-dynamic';

const ZIP_TYPES = new Set(['application/octet-stream', 'application/zip', 'application/x-zip-compressed']);

/**
 * Import a skill pack: the raw ZIP as the body (application/octet-stream or application/zip), read while it streams
 * and refused (413) as soon as it passes LIMITS.skills.zipBytes; every bound of the archive is checked before and
 * while it inflates (server/skills/zip.ts).
 */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!ZIP_TYPES.has(type)) {
    await req.body?.cancel().catch(() => undefined); // never read: the wrong kind of body
    throw new AppError(415, 'unsupported_media_type', 'Send the ZIP as application/octet-stream or application/zip');
  }
  const zip = await readBodyBytes(req, LIMITS.skills.zipBytes);
  return json(await importSkillZip(user.id, zip), { status: 201 });
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST }, requireUser);
