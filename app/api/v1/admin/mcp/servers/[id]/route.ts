import { updateMcpServerSchema } from '@/lib/schemas/mcp-servers';
import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { adminMcpServer, deleteAdminMcpServer, updateAdminMcpServer } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };
const NO_STORE = { 'cache-control': 'no-store' };

export const GET = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json(await adminMcpServer((await ctx.params).id), { headers: NO_STORE });
});

/** Change any subset; env and header values are write-only (`keepEnv` / `keepHeaders` keep stored ones). */
export const PATCH = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  const input = await readBody(req, updateMcpServerSchema);
  return json(await updateAdminMcpServer((await ctx.params).id, input), { headers: NO_STORE });
});

/** Remove a deployment-wide server: its connection in this process ends (a stdio server stops). */
export const DELETE = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  await deleteAdminMcpServer((await ctx.params).id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireAdmin);
