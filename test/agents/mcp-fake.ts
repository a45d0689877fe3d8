import crypto from 'node:crypto';
import { canonicalJson } from '@/server/agents/assembly/fingerprint';
import { McpCallError, type McpCallOptions, type McpCallResult, type McpServerDiscovery, type McpServerRef, type McpToolInfo } from '@/server/mcp/types';

/**
 * A stand-in for server/mcp/index.ts (the MCP client's facade) in the run tests: servers and their tools in memory,
 * each call recorded and answered by the test's handler. It keeps the facade's contract: another owner's server is
 * not visible, an isError result is returned (not thrown), a failure is an McpCallError.
 */
export { McpCallError };

type FakeServer = { ref: McpServerRef; tools: McpToolInfo[]; status: 'connected' | 'error'; listedAt: string | null };
export type FakeCall = { server: string; tool: string; args: unknown; signal: AbortSignal | undefined };
type Handler = (call: FakeCall, opts: McpCallOptions | undefined) => Promise<McpCallResult> | McpCallResult;

const servers = new Map<string, FakeServer>();
export const calls: FakeCall[] = [];
let handler: Handler = () => ({ isError: false, parts: [{ type: 'text', text: 'ok' }], truncated: false });

export const schemaHashOf = (info: Pick<McpToolInfo, 'name' | 'description' | 'inputSchema'>) =>
  crypto.createHash('sha256').update(canonicalJson({ name: info.name, description: info.description, inputSchema: info.inputSchema })).digest('hex');

export function fakeTool(name: string, description = `Does ${name}`, inputSchema: Record<string, unknown> = { type: 'object', properties: { text: { type: 'string' } } }): McpToolInfo {
  return { name, description, inputSchema, schemaHash: schemaHashOf({ name, description, inputSchema }) };
}

export function addServer(ownerId: string | null, name: string, tools: McpToolInfo[]): McpServerRef {
  const ref: McpServerRef = { id: crypto.randomUUID(), name, ownerId, transport: 'http', timeoutMs: 60_000, maxConcurrent: 4 };
  servers.set(ref.id, { ref, tools, status: 'connected', listedAt: new Date().toISOString() });
  return ref;
}

/** The server now lists these tools (a changed tool gets a new schema hash). */
export function setTools(serverId: string, tools: McpToolInfo[]): void {
  servers.get(serverId)!.tools = tools;
}

/**
 * The server can't be reached now (its last discovery says error): with its tools as last listed, or, with
 * `neverListed`, none (no process ever listed it). Calls to it fail as the real client's do.
 */
export function setUnreachable(serverId: string, opts: { neverListed?: boolean } = {}): void {
  const s = servers.get(serverId)!;
  s.status = 'error';
  if (opts.neverListed) s.listedAt = null;
}

/** The server is deleted: no owner may use it any more. */
export function removeServer(serverId: string): void {
  servers.delete(serverId);
}

export function onCall(next: Handler): void {
  handler = next;
}

export function resetFake(): void {
  servers.clear();
  calls.length = 0;
  handler = () => ({ isError: false, parts: [{ type: 'text', text: 'ok' }], truncated: false });
}

const visible = (s: FakeServer, ownerId: string) => s.ref.ownerId === null || s.ref.ownerId === ownerId;

export async function usableMcpServers(ownerId: string): Promise<McpServerRef[]> {
  return [...servers.values()].filter((s) => visible(s, ownerId)).map((s) => s.ref);
}

export async function usableMcpServer(ownerId: string, serverId: string): Promise<McpServerRef | null> {
  const s = servers.get(serverId);
  return s && visible(s, ownerId) ? s.ref : null;
}

export async function mcpServerTools(server: McpServerRef): Promise<McpServerDiscovery> {
  const s = servers.get(server.id);
  if (!s) return { status: 'error', checkedAt: new Date().toISOString(), error: 'unreachable', tools: [], listedAt: null };
  const tools = s.listedAt === null ? [] : s.tools;
  if (s.status === 'error') return { status: 'error', checkedAt: new Date().toISOString(), error: 'unreachable', tools, listedAt: s.listedAt };
  return { status: 'connected', checkedAt: new Date().toISOString(), tools, listedAt: s.listedAt };
}

export async function callMcpTool(server: McpServerRef, tool: string, args: unknown, opts?: McpCallOptions): Promise<McpCallResult> {
  const s = servers.get(server.id);
  if (!s) throw new McpCallError('gone', 'server_unavailable');
  if (s.status === 'error') throw new McpCallError(`The MCP server "${server.name}" could not be started or reached: connect ECONNREFUSED`, 'server_unavailable');
  if (!s.tools.some((t) => t.name === tool)) throw new McpCallError(`no tool ${tool}`, 'unknown_tool');
  const call = { server: server.name, tool, args, signal: opts?.signal };
  calls.push(call);
  return handler(call, opts);
}

export function mcpOrigin(server: Pick<McpServerRef, 'name'>, tool: string): string {
  return `mcp:${server.name}/${tool}`;
}
