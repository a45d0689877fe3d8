import 'server-only';
import { z } from 'zod';
import type { FileScope } from '@/lib/types/file';
import { requireUser } from '@/server/auth/require-user';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { listFiles } from './files';
import { resolveScope } from './scope';
import { uploadFile } from './upload';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };
const uploadQuery = z.strictObject({ name: z.string({ error: 'A file needs a name' }) });

/**
 * GET and POST <scope>/files for a team's workspace or a chat (docs/api.md "Files"). POST's body is the raw bytes
 * (Content-Type application/octet-stream from a browser), streamed to the store; the name comes from ?name=.
 */
export function scopeFileRoutes(kind: FileScope['kind']) {
  const GET = route(async (req, ctx: Ctx) => {
    const user = await requireUser(req);
    refuseQuery(req);
    const { id } = await ctx.params;
    return json({ files: await listFiles(await resolveScope(user.id, { kind, id })) });
  });
  const POST = route(async (req, ctx: Ctx) => {
    const user = await requireUser(req);
    const { id } = await ctx.params;
    const { name } = parseOrThrow(uploadQuery, Object.fromEntries(new URL(req.url).searchParams));
    const length = req.headers.get('content-length');
    const declared = length !== null && /^\d+$/.test(length) ? Number(length) : null;
    const file = await uploadFile(user.id, { kind, id }, name, req.body, declared);
    return json({ file }, { status: 201 });
  });
  return { GET, POST };
}
