import 'server-only';
import type { CreateDeploymentMcpServerData, CreateHttpMcpServerData, McpServerStatusView, McpServerSummary, McpServerUsageView, McpServerView, UpdateMcpServerData } from '@/lib/schemas/mcp-servers';
import { AppError } from '@/server/http/errors';
import { mcpServerUsage } from './agent-usage';
import { forgetMcpConnection } from './connections';
import { mcpServerTools } from './index';
import {
  createDeploymentMcpServer,
  createOwnMcpServer,
  deleteMcpServer,
  deploymentMcpServerRow,
  listDeploymentMcpServers,
  listOwnMcpServers,
  ownMcpServerRow,
  toMcpServerRef,
  toMcpServerView,
  updateMcpServer,
  usableMcpServerRow,
  type McpServerRow,
} from './store';

/**
 * What the account and admin routes and actions do with MCP servers (ADR 054). The caller has checked who is asking
 * (requireUser / requireAdmin); these functions scope by owner: an account sees and changes its own servers, sees the
 * deployment's by name only, and gets 404 for any other id.
 */

const summary = (row: McpServerRow): McpServerSummary => ({ id: row.id, name: row.name, transport: row.transport, timeoutMs: row.timeoutMs, maxConcurrent: row.maxConcurrent });

export async function accountMcpServers(ownerId: string): Promise<{ servers: McpServerView[]; deploymentWide: McpServerSummary[] }> {
  const [own, deployment] = await Promise.all([listOwnMcpServers(ownerId), listDeploymentMcpServers()]);
  return { servers: own.map(toMcpServerView), deploymentWide: deployment.map(summary) };
}

/** The refusal an account gets for a command-running server, whatever else the body says. */
export function refuseStdioForAccount(body: unknown): void {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (b.transport === 'stdio' || 'command' in b || 'args' in b || 'env' in b) {
      throw new AppError(
        403,
        'forbidden',
        "An account's own MCP servers are reached over Streamable HTTP (a URL); a server that runs a command (stdio) is deployment-wide, added by an admin on the Admin page",
      );
    }
  }
}

export async function createAccountMcpServer(ownerId: string, data: CreateHttpMcpServerData): Promise<McpServerView> {
  return toMcpServerView(await createOwnMcpServer(ownerId, data));
}

export async function accountMcpServer(ownerId: string, id: string): Promise<McpServerView> {
  return toMcpServerView(await ownMcpServerRow(ownerId, id));
}

export async function updateAccountMcpServer(ownerId: string, id: string, data: UpdateMcpServerData): Promise<McpServerView> {
  const updated = await updateMcpServer(await ownMcpServerRow(ownerId, id), data);
  await forgetMcpConnection(id);
  return toMcpServerView(updated);
}

export async function deleteAccountMcpServer(ownerId: string, id: string): Promise<void> {
  await deleteMcpServer(await ownMcpServerRow(ownerId, id));
  await forgetMcpConnection(id);
}

/** The account's agents that use its own server (what removing the server takes out of them). */
export async function accountMcpServerUsage(ownerId: string, id: string): Promise<McpServerUsageView> {
  return mcpServerUsage(await ownMcpServerRow(ownerId, id), ownerId);
}

/** Status and tools of a server the account may use (its own or the deployment's). */
export async function accountMcpServerTools(ownerId: string, id: string, refresh: boolean): Promise<McpServerStatusView> {
  return mcpServerTools(toMcpServerRef(await usableMcpServerRow(ownerId, id)), { refresh });
}

export async function adminMcpServers(): Promise<McpServerView[]> {
  return (await listDeploymentMcpServers()).map(toMcpServerView);
}

export async function createAdminMcpServer(data: CreateDeploymentMcpServerData): Promise<McpServerView> {
  return toMcpServerView(await createDeploymentMcpServer(data));
}

export async function adminMcpServer(id: string): Promise<McpServerView> {
  return toMcpServerView(await deploymentMcpServerRow(id));
}

export async function updateAdminMcpServer(id: string, data: UpdateMcpServerData): Promise<McpServerView> {
  const updated = await updateMcpServer(await deploymentMcpServerRow(id), data);
  await forgetMcpConnection(id);
  return toMcpServerView(updated);
}

export async function deleteAdminMcpServer(id: string): Promise<void> {
  await deleteMcpServer(await deploymentMcpServerRow(id));
  await forgetMcpConnection(id);
}

/** The agents that use a deployment-wide server: the admin's own by name, every account's counted. */
export async function adminMcpServerUsage(adminId: string, id: string): Promise<McpServerUsageView> {
  return mcpServerUsage(await deploymentMcpServerRow(id), adminId);
}

export async function adminMcpServerTools(id: string, refresh: boolean): Promise<McpServerStatusView> {
  return mcpServerTools(toMcpServerRef(await deploymentMcpServerRow(id)), { refresh });
}
