import 'server-only';
import { and, asc, eq, sql } from 'drizzle-orm';
import { withoutMcpServers } from '@/lib/mcp/approval-rule';
import type { McpServerUsageView } from '@/lib/schemas/mcp-servers';
import { getDb, schema, type Db } from '@/server/db';

/**
 * Which agents use an MCP server, and taking the server out of them when it is deleted (in the deleting
 * transaction, store.ts). Scoped by the server's owner: an account's server can only be in that account's agents
 * (the catalog checks it), and only those are read or changed, whatever the others hold; a deployment-wide server
 * may be in any account's agents.
 */

const { agents } = schema;
type Server = { id: string; ownerId: string | null };
type Using = { id: string; ownerId: string; name: string; mcpTools: typeof agents.$inferSelect.mcpTools; approvalTools: string[] };

/** LIKE pattern matching `text` literally anywhere (with ESCAPE '\'). */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function agentsUsing(db: Db, server: Server): Promise<Using[]> {
  const rows = await db
    .select({ id: agents.id, ownerId: agents.ownerId, name: agents.name, mcpTools: agents.mcpTools, approvalTools: agents.approvalTools })
    .from(agents)
    .where(
      and(
        server.ownerId === null ? undefined : eq(agents.ownerId, server.ownerId),
        // The selection's JSON text names the id; the exact check is below (a cheap filter on both engines).
        sql`cast(${agents.mcpTools} as text) like ${contains(server.id)} escape '\\'`,
      ),
    )
    .orderBy(asc(agents.nameKey));
  return rows.filter((a) => a.mcpTools.some((s) => s.serverId === server.id));
}

/** The agents a removal of the server would change: the viewer's own by name, every one counted. */
export async function mcpServerUsage(server: Server, viewerId: string): Promise<McpServerUsageView> {
  const using = await agentsUsing(getDb(), server);
  return { agents: using.filter((a) => a.ownerId === viewerId).map((a) => ({ id: a.id, name: a.name })), count: using.length };
}

/**
 * Take the server out of every agent that uses it (its selection entry and its approval rules), inside the caller's
 * writeTx. Reads what is stored now and writes the result, so a second run of the body changes nothing more.
 */
export async function removeMcpServerFromAgents(tx: Db, server: Server): Promise<number> {
  const using = await agentsUsing(tx, server);
  const gone = new Set([server.id]);
  const now = new Date();
  for (const agent of using) {
    const next = withoutMcpServers(agent.mcpTools, agent.approvalTools, gone);
    await tx
      .update(agents)
      .set({ mcpTools: next.mcpTools, approvalTools: next.approvalTools, updatedAt: now })
      .where(and(eq(agents.id, agent.id), eq(agents.ownerId, agent.ownerId)));
  }
  return using.length;
}
