import { createDeploymentMcpServerSchema } from '@/lib/schemas/mcp-servers';
import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { adminMcpServers, createAdminMcpServer } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

const NO_STORE = { 'cache-control': 'no-store' };

/** The deployment-wide MCP servers (every account may use them); secrets as names only. */
export const GET = route(async (req) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json({ servers: await adminMcpServers() }, { headers: NO_STORE });
});

/** Add a deployment-wide server: a command over stdio, or a Streamable HTTP URL. */
export const POST = route(async (req) => {
  await requireAdmin(req);
  const input = await readBody(req, createDeploymentMcpServerSchema);
  return json(await createAdminMcpServer(input), { status: 201, headers: NO_STORE });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireAdmin);
