import { requireUser } from '@/server/auth/require-user';
import { diffVersions } from '@/server/files/diff';
import { fileVersion, ownedFile } from '@/server/files/files';
import { diffQuery, searchParams } from '@/server/files/version-query';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ fileId: string }> };

/** `{ diff }`: a unified diff from revision `from` to `to` of a text file; 422 for binary versions. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { fileId } = await ctx.params;
  const { from, to } = parseOrThrow(diffQuery, searchParams(req));
  const file = await ownedFile(user.id, fileId);
  return json({ diff: await diffVersions(file, await fileVersion(file, from), await fileVersion(file, to)) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
