import 'server-only';
/**
 * The MCP client's contract with the rest of the product (issue 28). Run code imports these types and
 * server/mcp/index.ts only; everything else under server/mcp is the client's own.
 */

export type McpTransport = 'stdio' | 'http';

/** A server a given owner may use: deployment-wide (ownerId null, admin-defined) or the owner's own. No secrets. */
export interface McpServerRef {
  id: string;
  name: string;
  ownerId: string | null;
  transport: McpTransport;
  timeoutMs: number;
  maxConcurrent: number;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** sha256 hex of the canonical JSON of { name, description, inputSchema } — changes when the server changes the tool. */
  schemaHash: string;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export type McpContentPart =
  | { type: 'text'; text: string }
  /** A typed reference to an image the server returned: never rendered as HTML, its bytes are not kept. */
  | { type: 'image'; mimeType: string; byteLength: number }
  | { type: 'resource'; uri: string; mimeType?: string; name?: string; text?: string };

export interface McpCallResult {
  isError: boolean;
  parts: McpContentPart[];
  truncated: boolean;
  structuredContent?: unknown;
}

export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: McpProgress) => void;
}

export interface McpServerTools {
  status: 'connected' | 'error';
  checkedAt: string;
  error?: string;
  tools: McpToolInfo[];
  /** The server listed more tools than are kept (LIMITS.mcp.tools): the rest are left out. */
  toolsTruncated?: boolean;
}

/** A server's last discovery by any process (ADR 057): listedAt is when its tools were last listed, null if never. */
export type McpServerDiscovery = McpServerTools & { listedAt: string | null };

export class McpCallError extends Error {
  constructor(
    message: string,
    /** interrupted: the server stopped while the call was in flight, so whether the tool did its work is unknown. */
    readonly code: 'invalid_arguments' | 'timeout' | 'cancelled' | 'server_unavailable' | 'interrupted' | 'protocol' | 'unknown_tool',
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}

/**
 * Whether an error is an McpCallError, by name and code rather than instanceof: route bundles and start-up each load
 * their own copy of this module, and a connection (kept on globalThis) throws the class of whichever copy made it.
 */
export function isMcpCallError(err: unknown): err is McpCallError {
  return err instanceof Error && err.name === 'McpCallError' && typeof (err as { code?: unknown }).code === 'string';
}
