import 'server-only';
import fs from 'node:fs';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LIMITS } from '@/lib/limits';
import { egressFetch, type Resolver } from '@/server/egress';
import { env } from '@/server/env';
import { boundedFetch } from './bounded-fetch';
import { LineBuffer } from './line-buffer';
import { STDIO_GUARD } from './stdio-guard';
import type { McpConnectionSpec } from './store';

/** A started-or-startable transport with what the connection needs to explain a failure and to clean up. */
export type OpenedTransport = {
  transport: Transport;
  /** The last lines the server wrote to stderr (stdio), for error messages. */
  stderrTail: () => string;
  /** The launcher's pid once started (stdio). */
  pid: () => number | null;
  dispose: () => Promise<void>;
};

export type TransportOptions = { resolver?: Resolver; dataDir?: string };

/** A stdio server's working directory: under DATA_DIR, its own, owner-only. */
function workingDir(spec: McpConnectionSpec, dataDir: string): string {
  const dir = path.join(dataDir, 'mcp', spec.id);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function openTransport(spec: McpConnectionSpec, opts: TransportOptions = {}): OpenedTransport {
  if (spec.transport === 'stdio') {
    if (!spec.command) throw new Error('This stdio server has no command');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', STDIO_GUARD, spec.command, ...spec.args],
      env: spec.env,
      cwd: workingDir(spec, opts.dataDir ?? env.dataDir),
      stderr: 'pipe',
      maxBufferSize: LIMITS.mcp.messageBytes,
    });
    // The SDK's read buffer is quadratic in a message's size (line-buffer.ts): replace it before start.
    const internals = transport as unknown as { _readBuffer?: unknown };
    if (!internals._readBuffer) throw new Error('The MCP SDK no longer has the read buffer this app replaces (line-buffer.ts)');
    internals._readBuffer = new LineBuffer(LIMITS.mcp.messageBytes);
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-LIMITS.mcp.stderrTailChars);
    });
    return { transport, stderrTail: () => tail.trim(), pid: () => transport.pid, dispose: async () => {} };
  }
  if (!spec.url) throw new Error('This HTTP server has no URL');
  // An account's server goes through the egress rule; a deployment-wide one is the admin's to point anywhere.
  const egress = spec.ownerId ? egressFetch(opts.resolver) : null;
  const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers },
    fetch: boundedFetch(egress ? egress.fetch : fetch),
  });
  return { transport, stderrTail: () => '', pid: () => null, dispose: async () => egress?.close() };
}
