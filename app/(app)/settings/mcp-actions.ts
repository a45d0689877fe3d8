'use server';

import type { ActionResult } from '@/lib/action-result';
import { createHttpMcpServerSchema, updateMcpServerSchema, type McpServerView } from '@/lib/schemas/mcp-servers';
import { requireUser } from '@/server/auth/require-user';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { createAccountMcpServer, deleteAccountMcpServer, refuseStdioForAccount, updateAccountMcpServer } from '@/server/mcp/servers';

/**
 * Settings' MCP server mutations (ADR 054): the same functions and schemas as /api/v1/mcp/servers, each resolving
 * the signed-in person itself. A command (stdio) is refused as on the API; another account's id is not_found.
 */

export async function createMcpServerAction(input: unknown): Promise<ActionResult<McpServerView>> {
  return toActionResult(async () => {
    const user = await requireUser();
    refuseStdioForAccount(input);
    return createAccountMcpServer(user.id, actionInput(createHttpMcpServerSchema, input));
  });
}

export async function updateMcpServerAction(id: unknown, input: unknown): Promise<ActionResult<McpServerView>> {
  return toActionResult(async () => {
    const user = await requireUser();
    refuseStdioForAccount(input);
    return updateAccountMcpServer(user.id, actionId(id), actionInput(updateMcpServerSchema, input));
  });
}

export async function deleteMcpServerAction(id: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteAccountMcpServer(user.id, actionId(id));
    return null;
  });
}
