import 'server-only';
import crypto from 'node:crypto';
import { and, asc, count, eq, isNull, ne, or } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { CreateDeploymentMcpServerData, CreateHttpMcpServerData, McpServerView, UpdateMcpServerData } from '@/lib/schemas/mcp-servers';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { isUniqueViolation } from '@/server/db/errors';
import { AppError, conflict, notFound } from '@/server/http/errors';
import { open, seal } from '@/server/providers/secret-box';
import { removeMcpServerFromAgents } from './agent-usage';
import type { McpServerRef } from './types';

/**
 * The mcp_servers table (ADR 054). Callers check who is asking: admin routes use the deployment-wide functions, account
 * routes the owner-scoped ones, which answer another owner's id exactly like a missing one. Nothing here returns a
 * secret except connectionSpec, which only the client (connection.ts) calls.
 */

export type McpServerRow = typeof schema.mcpServers.$inferSelect;
type Secrets = { url?: string; headers?: Record<string, string>; env?: Record<string, string> };

/** What the client needs to connect: the secrets opened. Never leaves the server process. */
export type McpConnectionSpec = McpServerRef & {
  version: number;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  url: string | null;
  headers: Record<string, string>;
};

const DEPLOYMENT = '';
const aad = (id: string) => `mcp-server:${id}`;

/** The URL as people see it: no credentials (refused anyway), no query (it may hold a token), no fragment. */
export function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
}

export function toMcpServerView(row: McpServerRow): McpServerView {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.ownerId,
    transport: row.transport,
    command: row.command,
    args: row.args ?? [],
    url: row.urlShown,
    envNames: row.envNames ?? [],
    headerNames: row.headerNames ?? [],
    timeoutMs: row.timeoutMs,
    maxConcurrent: row.maxConcurrent,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMcpServerRef(row: McpServerRow): McpServerRef {
  return { id: row.id, name: row.name, ownerId: row.ownerId, transport: row.transport, timeoutMs: row.timeoutMs, maxConcurrent: row.maxConcurrent };
}

function openSecrets(row: McpServerRow): Secrets {
  return row.secretsCipher ? (JSON.parse(open(row.secretsCipher, aad(row.id))) as Secrets) : {};
}

export function connectionSpecOf(row: McpServerRow): McpConnectionSpec {
  const secrets = openSecrets(row);
  return {
    ...toMcpServerRef(row),
    version: row.updatedAt.getTime(),
    command: row.command,
    args: row.args ?? [],
    env: secrets.env ?? {},
    url: secrets.url ?? null,
    headers: secrets.headers ?? {},
  };
}

function secretColumns(id: string, secrets: Secrets) {
  return {
    secretsCipher: seal(JSON.stringify(secrets), aad(id)),
    urlShown: secrets.url ? shownUrl(secrets.url) : null,
    envNames: secrets.env ? Object.keys(secrets.env).sort() : null,
    headerNames: secrets.headers ? Object.keys(secrets.headers).sort() : null,
  };
}

const nameTaken = (name: string) => new AppError(409, 'name_taken', `An MCP server named "${name}" already exists`, { name: 'Already used by another MCP server you can use' });

/** A name must be unique among the servers one owner can use: the deployment's and their own. */
async function assertNameFree(tx: Db, name: string, ownerId: string | null, exceptId?: string) {
  const clash = ownerId
    ? or(eq(schema.mcpServers.scope, DEPLOYMENT), eq(schema.mcpServers.ownerId, ownerId))
    : undefined; // deployment-wide: unique against every server, since every account sees it
  const where = and(eq(schema.mcpServers.name, name), clash, exceptId ? ne(schema.mcpServers.id, exceptId) : undefined);
  const [row] = await tx.select({ id: schema.mcpServers.id }).from(schema.mcpServers).where(where).limit(1);
  if (row) throw nameTaken(name);
}

export async function listDeploymentMcpServers(): Promise<McpServerRow[]> {
  return getDb().select().from(schema.mcpServers).where(isNull(schema.mcpServers.ownerId)).orderBy(asc(schema.mcpServers.name));
}

export async function listOwnMcpServers(ownerId: string): Promise<McpServerRow[]> {
  return getDb().select().from(schema.mcpServers).where(eq(schema.mcpServers.ownerId, ownerId)).orderBy(asc(schema.mcpServers.name));
}

/** The deployment's servers and the owner's own, the deployment's first. */
export async function usableMcpServerRows(ownerId: string): Promise<McpServerRow[]> {
  const rows = await getDb()
    .select()
    .from(schema.mcpServers)
    .where(or(isNull(schema.mcpServers.ownerId), eq(schema.mcpServers.ownerId, ownerId)))
    .orderBy(asc(schema.mcpServers.scope), asc(schema.mcpServers.name));
  return rows;
}

export async function mcpServerRowById(id: string): Promise<McpServerRow | undefined> {
  const [row] = await getDb().select().from(schema.mcpServers).where(eq(schema.mcpServers.id, id));
  return row;
}

/** A server the owner may use (deployment-wide or own), else 404. */
export async function usableMcpServerRow(ownerId: string, id: string): Promise<McpServerRow> {
  const row = await mcpServerRowById(id);
  if (!row || (row.ownerId !== null && row.ownerId !== ownerId)) throw notFound('MCP server');
  return row;
}

/** The owner's own server, else 404 (a deployment-wide one is not theirs to change). */
export async function ownMcpServerRow(ownerId: string, id: string): Promise<McpServerRow> {
  const row = await mcpServerRowById(id);
  if (!row || row.ownerId !== ownerId) throw notFound('MCP server');
  return row;
}

export async function deploymentMcpServerRow(id: string): Promise<McpServerRow> {
  const row = await mcpServerRowById(id);
  if (!row || row.ownerId !== null) throw notFound('MCP server');
  return row;
}

async function insert(ownerId: string | null, data: CreateDeploymentMcpServerData): Promise<McpServerRow> {
  const id = crypto.randomUUID();
  const secrets: Secrets = data.transport === 'http' ? { url: data.url, headers: data.headers ?? {} } : { env: data.env ?? {} };
  try {
    return await writeTx(async (tx) => {
      const scopeWhere = ownerId ? eq(schema.mcpServers.ownerId, ownerId) : isNull(schema.mcpServers.ownerId);
      const [{ n }] = (await tx.select({ n: count() }).from(schema.mcpServers).where(scopeWhere)) as [{ n: number }];
      const cap = ownerId ? LIMITS.mcp.perAccount : LIMITS.mcp.deploymentWide;
      if (n >= cap) throw conflict('mcp_server_limit', `At most ${cap} MCP servers ${ownerId ? 'per account' : 'for the deployment'}`);
      await assertNameFree(tx, data.name, ownerId);
      const [row] = await tx
        .insert(schema.mcpServers)
        .values({
          id,
          ownerId,
          scope: ownerId ?? DEPLOYMENT,
          name: data.name,
          transport: data.transport,
          command: data.transport === 'stdio' ? data.command : null,
          args: data.transport === 'stdio' ? (data.args ?? []) : null,
          ...secretColumns(id, secrets),
          timeoutMs: data.timeoutMs ?? LIMITS.mcp.timeoutMs.default,
          maxConcurrent: data.maxConcurrent ?? LIMITS.mcp.maxConcurrent.default,
          updatedAt: new Date(),
        })
        .returning();
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(data.name);
    throw err;
  }
}

/** An account's own server: Streamable HTTP only (the route refuses stdio with 403 before this). */
export const createOwnMcpServer = (ownerId: string, data: CreateHttpMcpServerData) => insert(ownerId, data);
export const createDeploymentMcpServer = (data: CreateDeploymentMcpServerData) => insert(null, data);

/** Keep the named stored values, replace the rest with `given`. */
function merged(stored: Record<string, string> | undefined, given: Record<string, string> | undefined, keep: string[] | undefined) {
  if (given === undefined && keep === undefined) return stored;
  const out: Record<string, string> = {};
  for (const name of keep ?? []) if (stored && name in stored) out[name] = stored[name]!;
  return { ...out, ...(given ?? {}) };
}

export async function updateMcpServer(row: McpServerRow, data: UpdateMcpServerData): Promise<McpServerRow> {
  const fields: Record<string, string> = {};
  if (row.transport === 'http' && (data.command !== undefined || data.args !== undefined || data.env !== undefined || data.keepEnv !== undefined)) {
    fields.command = 'An HTTP server has no command, arguments or env';
  }
  if (row.transport === 'stdio' && (data.url !== undefined || data.headers !== undefined || data.keepHeaders !== undefined)) {
    fields.url = 'A stdio server has no URL or headers';
  }
  if (Object.keys(fields).length) throw new AppError(422, 'validation_error', Object.values(fields)[0]!, fields);
  try {
    const updated = await writeTx(async (tx) => {
      const [current] = await tx.select().from(schema.mcpServers).where(eq(schema.mcpServers.id, row.id));
      if (!current) return undefined;
      if (data.name !== undefined && data.name !== current.name) await assertNameFree(tx, data.name, current.ownerId, current.id);
      const stored = openSecrets(current);
      const secrets: Secrets =
        current.transport === 'http'
          ? { url: data.url ?? stored.url, headers: merged(stored.headers, data.headers, data.keepHeaders) ?? {} }
          : { env: merged(stored.env, data.env, data.keepEnv) ?? {} };
      const [next] = await tx
        .update(schema.mcpServers)
        .set({
          ...(data.name !== undefined ? { name: data.name } : {}),
          ...(data.timeoutMs !== undefined ? { timeoutMs: data.timeoutMs } : {}),
          ...(data.maxConcurrent !== undefined ? { maxConcurrent: data.maxConcurrent } : {}),
          ...(data.command !== undefined ? { command: data.command } : {}),
          ...(data.args !== undefined ? { args: data.args } : {}),
          ...secretColumns(current.id, secrets),
          // Strictly later than the stored version: connections compare it to know the definition changed.
          updatedAt: new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1)),
        })
        .where(eq(schema.mcpServers.id, current.id))
        .returning();
      // The last discovery described the definition before this edit (another URL, other headers): the server is
      // listed again on its next use, and until then its tools are not offered (ADR 057).
      await tx.delete(schema.mcpDiscoveries).where(eq(schema.mcpDiscoveries.serverId, current.id));
      return next;
    });
    if (!updated) throw notFound('MCP server');
    return updated;
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(data.name ?? row.name);
    throw err;
  }
}

/**
 * Delete the server and take it out of the agents that use it (their selection entry and approval rules for it), in
 * one transaction: no agent is left naming a server that no longer exists (ADR 055). Only the server owner's agents
 * are read or changed (every account's for a deployment-wide server).
 */
export async function deleteMcpServer(row: McpServerRow): Promise<void> {
  const removed = await writeTx(async (tx) => {
    const gone = await tx.delete(schema.mcpServers).where(eq(schema.mcpServers.id, row.id)).returning({ id: schema.mcpServers.id });
    if (gone.length) await removeMcpServerFromAgents(tx, row);
    return gone.length;
  });
  if (removed === 0) throw notFound('MCP server');
}
