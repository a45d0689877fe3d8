import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export type StubCall = { name: string; args: Record<string, unknown> };

/** What `crawl` reports, in order, before it waits. */
export const progressLines = ['reading page 1', 'reading page 2'];

const TOOLS = [
  { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } },
  { name: 'shout', description: 'Say a text loudly', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'erase', description: 'Erase everything', inputSchema: { type: 'object', properties: {} } },
];

/** With `progress`: a tool that reports progress, then answers only once the test calls `release()`. */
const CRAWL = { name: 'crawl', description: 'Crawl a site, reporting progress', inputSchema: { type: 'object', properties: {} } };

/**
 * A small MCP server over Streamable HTTP on loopback, started by a browser test (stateless: a fresh server and
 * transport per request, as the SDK's stateless example does). It records every tool call it answers. With
 * `{ progress: true }` it also offers `crawl`, which sends `progressLines` as progress notifications and then waits
 * for `release()` before it answers (the test decides when the call ends, no timer does).
 */
export async function startMcpStub(options: { progress?: boolean } = {}): Promise<{ url: string; calls: StubCall[]; release(): void; close(): Promise<void> }> {
  const calls: StubCall[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const mcpServer = () => {
    const server = new Server({ name: 'e2e-stub', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: options.progress ? [...TOOLS, CRAWL] : TOOLS }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: req.params.name, args });
      if (req.params.name === 'crawl' && options.progress) {
        const progressToken = req.params._meta?.progressToken;
        if (progressToken !== undefined) {
          for (const [i, message] of progressLines.entries()) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i + 1, total: 3, message } });
          }
        }
        await released;
        return { content: [{ type: 'text', text: 'crawl done' }] };
      }
      if (req.params.name === 'shout') return { content: [{ type: 'text', text: `${String(args.text).toUpperCase()}!` }] };
      return { content: [{ type: 'text', text: `${req.params.name} done` }] };
    });
    return server;
  };
  const http_ = http.createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http_.listen(0, '127.0.0.1', resolve));
  const { port } = http_.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    release,
    close: () => new Promise<void>((resolve) => http_.close(() => resolve())),
  };
}
