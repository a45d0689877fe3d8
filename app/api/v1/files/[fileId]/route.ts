import { requireUser } from '@/server/auth/require-user';
import { deleteFile, fileDetail } from '@/server/files/files';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ fileId: string }> };

/** The file (its latest version) and every version, newest first. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { fileId } = await ctx.params;
  return json(await fileDetail(user.id, fileId));
});

/** Delete the file and its versions: the person only (no member tool deletes). */
export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { fileId } = await ctx.params;
  await deleteFile(user.id, fileId);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, PATCH, OPTIONS } = otherMethods({ GET, DELETE }, requireUser);
