import 'server-only';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx } from '@/server/db';
import type { McpServerDiscovery, McpToolInfo } from './types';

/**
 * Each server's last discovery in the database (ADR 057), so every process and page shows the same status and a run
 * started in any process offers the tools as last listed. A process writes what it learnt when it lists a server
 * (connection.ts): a list replaces the tools; a failure sets the status and error and keeps the tools, since they
 * are still the best description of what the server offers (a run calls them, and a call to a server still down
 * fails naming it). A discovery is written only for the definition it was made with: an edit (or a delete) while a
 * list was in flight must not bring back another definition's tools.
 */

export type DiscoveryOutcome =
  | { ok: true; tools: McpToolInfo[]; truncated: boolean; at: number }
  | { ok: false; error: string; at: number };

/** The error as stored: one bounded line of text (the stored-text rule repairs NUL and lone surrogates on binding). */
export function storedDiscoveryError(error: string): string {
  const line = error.replace(/[\r\n\u2028\u2029]+/g, ' ');
  const chars = [...line];
  return chars.length > LIMITS.mcp.discoveryErrorChars ? `${chars.slice(0, LIMITS.mcp.discoveryErrorChars - 1).join('')}…` : line;
}

export async function recordMcpDiscovery(serverId: string, version: number, outcome: DiscoveryOutcome): Promise<void> {
  const t = schema.mcpDiscoveries;
  const checkedAt = new Date(outcome.at);
  await writeTx(async (tx) => {
    const [server] = await tx.select({ updatedAt: schema.mcpServers.updatedAt }).from(schema.mcpServers).where(eq(schema.mcpServers.id, serverId));
    if (!server || server.updatedAt.getTime() !== version) return;
    if (outcome.ok) {
      const values = { status: 'connected' as const, error: null, checkedAt, tools: outcome.tools, toolsTruncated: outcome.truncated, listedAt: checkedAt };
      await tx.insert(t).values({ serverId, ...values }).onConflictDoUpdate({ target: t.serverId, set: values });
    } else {
      const error = storedDiscoveryError(outcome.error);
      await tx
        .insert(t)
        .values({ serverId, status: 'error', error, checkedAt, tools: [], toolsTruncated: false, listedAt: null })
        .onConflictDoUpdate({ target: t.serverId, set: { status: 'error', error, checkedAt } });
    }
  });
}

/** A server's last discovery, or null when no process has tried it since it was defined or last edited. */
export async function storedMcpDiscovery(serverId: string): Promise<McpServerDiscovery | null> {
  const [row] = await getDb().select().from(schema.mcpDiscoveries).where(eq(schema.mcpDiscoveries.serverId, serverId));
  if (!row) return null;
  return {
    status: row.status,
    checkedAt: row.checkedAt.toISOString(),
    ...(row.error !== null ? { error: row.error } : {}),
    tools: row.tools,
    ...(row.toolsTruncated ? { toolsTruncated: true } : {}),
    listedAt: row.listedAt ? row.listedAt.toISOString() : null,
  };
}
