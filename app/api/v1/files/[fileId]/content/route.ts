import { requireUser } from '@/server/auth/require-user';
import { fileVersion, ownedFile } from '@/server/files/files';
import { contentResponse } from '@/server/files/serve';
import { searchParams, versionQuery } from '@/server/files/version-query';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ fileId: string }> };

/**
 * The bytes of a version (?revision=N, the latest without), streamed as an attachment with nosniff and a sandboxing
 * CSP; ?inline=1 serves png/jpeg/gif/webp inline (for the preview), anything else still as an attachment.
 */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { fileId } = await ctx.params;
  const { revision, inline } = parseOrThrow(versionQuery, searchParams(req));
  const file = await ownedFile(user.id, fileId);
  return contentResponse(file, await fileVersion(file, revision), inline === '1');
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
