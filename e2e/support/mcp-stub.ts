import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export type StubCall = { name: string; args: Record<string, unknown> };

const TOOLS = [
  { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } },
  { name: 'shout', description: 'Say a text loudly', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'erase', description: 'Erase everything', inputSchema: { type: 'object', properties: {} } },
];

/**
 * A small MCP server over Streamable HTTP on loopback, started by a browser test (stateless: a fresh server and
 * transport per request, as the SDK's stateless example does). It records every tool call it answers.
 */
export async function startMcpStub(): Promise<{ url: string; calls: StubCall[]; close(): Promise<void> }> {
  const calls: StubCall[] = [];
  const mcpServer = () => {
    const server = new Server({ name: 'e2e-stub', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: req.params.name, args });
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
    close: () => new Promise<void>((resolve) => http_.close(() => resolve())),
  };
}
