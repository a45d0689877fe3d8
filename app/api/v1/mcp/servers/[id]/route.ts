import { updateMcpServerSchema } from '@/lib/schemas/mcp-servers';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readJson, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { accountMcpServer, deleteAccountMcpServer, refuseStdioForAccount, updateAccountMcpServer } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };
const NO_STORE = { 'cache-control': 'no-store' };

/** One of the caller's own servers; another account's id (or a deployment-wide one) answers 404. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json(await accountMcpServer(user.id, (await ctx.params).id), { headers: NO_STORE });
});

/** Change any subset; header values are write-only (`keepHeaders` names the stored ones to keep). */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const body = await readJson(req);
  refuseStdioForAccount(body);
  return json(await updateAccountMcpServer(user.id, id, parseOrThrow(updateMcpServerSchema, body)), { headers: NO_STORE });
});

export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  await deleteAccountMcpServer(user.id, (await ctx.params).id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireUser);
