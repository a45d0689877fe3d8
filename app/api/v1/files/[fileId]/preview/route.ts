import { requireUser } from '@/server/auth/require-user';
import { fileVersion, ownedFile } from '@/server/files/files';
import { previewVersion } from '@/server/files/preview';
import { searchParams, versionQuery } from '@/server/files/version-query';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ fileId: string }> };

/** A bounded preview of a version: `{ kind, text?, language?, truncated }` (docs/api.md "Files"). */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { fileId } = await ctx.params;
  const { revision } = parseOrThrow(versionQuery.omit({ inline: true }), searchParams(req));
  const file = await ownedFile(user.id, fileId);
  return json(await previewVersion(file, await fileVersion(file, revision)));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
