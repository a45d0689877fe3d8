import { createHttpMcpServerSchema } from '@/lib/schemas/mcp-servers';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readJson, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { accountMcpServers, createAccountMcpServer, refuseStdioForAccount } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

const NO_STORE = { 'cache-control': 'no-store' };

/** The caller's own MCP servers (secrets as names only) and the deployment's, by name. */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json(await accountMcpServers(user.id), { headers: NO_STORE });
});

/** Add an MCP server reached over Streamable HTTP. A server that runs a command (stdio) is an admin's: 403. */
export const POST = route(async (req) => {
  const user = await requireUser(req);
  const body = await readJson(req);
  refuseStdioForAccount(body);
  const input = parseOrThrow(createHttpMcpServerSchema, body);
  return json(await createAccountMcpServer(user.id, input), { status: 201, headers: NO_STORE });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
