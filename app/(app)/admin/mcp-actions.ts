'use server';

import type { ActionResult } from '@/lib/action-result';
import { createDeploymentMcpServerSchema, updateMcpServerSchema, type McpServerView } from '@/lib/schemas/mcp-servers';
import { asAdmin } from '@/server/admin/access';
import { actionId, actionInput } from '@/server/http/action-input';
import { createAdminMcpServer, deleteAdminMcpServer, updateAdminMcpServer } from '@/server/mcp/servers';

/**
 * The Admin page's deployment-wide MCP server mutations (ADR 054): the same functions and schemas as
 * /api/v1/admin/mcp/servers. A non-admin gets not_found, as for every admin action, and nothing changes.
 */

export async function createAdminMcpServerAction(input: unknown): Promise<ActionResult<McpServerView>> {
  return asAdmin(() => createAdminMcpServer(actionInput(createDeploymentMcpServerSchema, input)));
}

export async function updateAdminMcpServerAction(id: unknown, input: unknown): Promise<ActionResult<McpServerView>> {
  return asAdmin(() => updateAdminMcpServer(actionId(id), actionInput(updateMcpServerSchema, input)));
}

export async function deleteAdminMcpServerAction(id: unknown): Promise<ActionResult<null>> {
  return asAdmin(async () => {
    await deleteAdminMcpServer(actionId(id));
    return null;
  });
}
