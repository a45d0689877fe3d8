import 'server-only';
import type { Resolver } from '@/server/egress';
import { McpConnection } from './connection';
import { recordMcpDiscovery } from './discovery-store';
import { connectionSpecOf, mcpServerRowById } from './store';
import { openTransport } from './transport';
import { McpCallError, type McpServerRef } from './types';

/**
 * This process's MCP connections, one per server (ADR 054: each app process runs its own servers). A connection is
 * reused while its definition is unchanged: the stored version is read again at most every SPEC_TTL_MS, so an edit or
 * a delete in another process takes effect within that time (at once in the process that made it).
 */
const SPEC_TTL_MS = 5_000;

type Entry = { conn: McpConnection; checkedAt: number };
type State = { entries: Map<string, Entry>; pending: Map<string, Promise<McpConnection>>; resolver?: Resolver; idleStopMs?: number };

// Route bundles and instrumentation may load separate copies of this module: one registry per process.
const g = globalThis as unknown as { __ensembleMcp?: State };
const state = (): State => (g.__ensembleMcp ??= { entries: new Map(), pending: new Map() });

/** Tests: resolve host names with this resolver, stop idle connections after this long. */
export function configureMcpConnections(opts: { resolver?: Resolver; idleStopMs?: number }): void {
  Object.assign(state(), opts);
}

export async function connectionFor(ref: Pick<McpServerRef, 'id' | 'name'>): Promise<McpConnection> {
  const s = state();
  const entry = s.entries.get(ref.id);
  if (entry && Date.now() - entry.checkedAt < SPEC_TTL_MS) return entry.conn;
  let pending = s.pending.get(ref.id);
  if (!pending) {
    pending = refresh(s, ref).finally(() => s.pending.delete(ref.id));
    s.pending.set(ref.id, pending);
  }
  return pending;
}

async function refresh(s: State, ref: Pick<McpServerRef, 'id' | 'name'>): Promise<McpConnection> {
  const row = await mcpServerRowById(ref.id);
  const entry = s.entries.get(ref.id);
  if (!row) {
    if (entry) await forget(s, ref.id);
    throw new McpCallError(`The MCP server "${ref.name}" no longer exists`, 'server_unavailable');
  }
  if (entry && entry.conn.spec.version === row.updatedAt.getTime()) {
    entry.checkedAt = Date.now();
    return entry.conn;
  }
  if (entry) await forget(s, ref.id);
  const conn = new McpConnection(connectionSpecOf(row), {
    open: (spec) => openTransport(spec, { resolver: s.resolver }),
    idleStopMs: s.idleStopMs,
    record: (outcome) => recordMcpDiscovery(row.id, row.updatedAt.getTime(), outcome),
  });
  s.entries.set(ref.id, { conn, checkedAt: Date.now() });
  return conn;
}

async function forget(s: State, id: string) {
  const entry = s.entries.get(id);
  s.entries.delete(id);
  await entry?.conn.dispose();
}

/** The definition changed or was deleted in this process: drop its connection now (a stdio server stops). */
export async function forgetMcpConnection(id: string): Promise<void> {
  await forget(state(), id);
}

/** Close every connection (tests, shutdown). */
export async function stopAllMcpConnections(): Promise<void> {
  const s = state();
  const ids = [...s.entries.keys()];
  await Promise.all(ids.map((id) => forget(s, id)));
}

/** The live connection for a server, if this process has one (tests: its pid). */
export function existingMcpConnection(id: string): McpConnection | undefined {
  return state().entries.get(id)?.conn;
}
