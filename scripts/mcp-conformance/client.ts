// The product's MCP client under the official conformance suite (npm run test:mcp:conformance, ADR 054). The runner
// starts a scenario's test server and runs this with its URL as the last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO; this connects through server/mcp/connection.ts exactly as a deployment-wide Streamable
// HTTP server is reached, does what the scenario expects of a client, and exits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpConnection } from '@/server/mcp/connection';
import { openTransport } from '@/server/mcp/transport';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-mcp-conformance-'));
const conn = new McpConnection(
  { id: 'conformance', name: 'conformance', ownerId: null, transport: 'http', timeoutMs: 20_000, maxConcurrent: 4, version: 1, command: null, args: [], env: {}, url, headers: {} },
  { open: (spec) => openTransport(spec, { dataDir }) },
);

async function main() {
  const listed = await conn.tools();
  if (listed.status !== 'connected') throw new Error(listed.error);
  console.log(`[${scenario}] tools: ${listed.tools.map((t) => t.name).join(', ')}`);
  for (const tool of listed.tools) {
    // Each scenario's server offers the tools it wants called; arguments from the tool's own numeric properties.
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
    const args = Object.fromEntries(Object.entries(properties).map(([name, p], i) => [name, p.type === 'number' || p.type === 'integer' ? i + 2 : 'x']));
    try {
      const res = await conn.call(tool.name, args);
      console.log(`[${scenario}] ${tool.name}: ${res.isError ? 'isError ' : ''}${JSON.stringify(res.parts).slice(0, 300)}`);
    } catch (err) {
      console.log(`[${scenario}] ${tool.name}: failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

main()
  .then(
    () => conn.dispose().then(() => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      return conn.dispose().then(() => process.exit(1));
    },
  );
