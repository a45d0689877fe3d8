import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { McpConnection, type ConnectionDeps } from '@/server/mcp/connection';
import type { McpConnectionSpec } from '@/server/mcp/store';
import { openTransport } from '@/server/mcp/transport';

export { until } from '../support/wait';

export const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const STUB = path.resolve('test/mcp/fixtures/stub-server.mjs');

const made: string[] = [];
/** A temporary directory, removed when the test file ends (each file loads this module afresh, ADR 037). */
export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ensemble-mcp-${label}-`));
  made.push(dir);
  return dir;
}
// Registered when a test file first imports this module, so it runs after that file's own after-hooks (stack order):
// its connections and servers are closed by then.
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function stdioSpec(args: string[], over: Partial<McpConnectionSpec> = {}): McpConnectionSpec {
  return {
    id: `test-${Math.random().toString(36).slice(2)}`,
    name: 'test-server',
    ownerId: null,
    transport: 'stdio',
    timeoutMs: 10_000,
    maxConcurrent: 4,
    version: 1,
    command: process.execPath,
    args,
    env: {},
    url: null,
    headers: {},
    ...over,
  };
}

const dataDir = tempDir('data');
export function connect(spec: McpConnectionSpec, deps: Partial<ConnectionDeps> = {}): McpConnection {
  return new McpConnection(spec, { open: (s) => openTransport(s, { dataDir }), ...deps });
}

/** JSON lines a stub server logged. */
export function stubLog(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
