// test:pg skip: SQLite's migrations (test-pg/dangling-mcp-servers-migration.test.ts runs the Postgres twin)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '@/server/db/sqlite-schema';
import { agentRows, agents, expectAsDeletingLeft, expected, migrationsBefore, servers, users } from './dangling-mcp-servers';

// Agents saved before deleting an MCP server took it out of them still name servers that no longer exist; migration
// 0027 takes those entries and their approval rules out, as a delete does now. What must not happen: an entry of a
// server the owner may use dropped, a rule that may be a kept server's dropped, or an agent with nothing dangling
// rewritten.

const folder = path.resolve(import.meta.dirname, '../../drizzle');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dangling-mcp-'));
const sqlite = new Database(path.join(dir, 'app.db'));
const db = drizzle(sqlite, { schema });

beforeAll(() => {
  migrate(db, { migrationsFolder: migrationsBefore(folder, '0027_dangling_mcp_servers') });
  db.insert(schema.users).values(users).run();
  db.insert(schema.mcpServers).values(servers).run();
  db.insert(schema.agents).values(agentRows).run();
  migrate(db, { migrationsFolder: folder });
});
afterAll(() => {
  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('migration 0027 (SQLite): MCP servers that no longer exist, out of agents', () => {
  it.each(agents.map((a) => [a.name, a] as const))('%s holds what deleting those servers would have left', (_name, agent) => {
    expectAsDeletingLeft(db.select().from(schema.agents).all().find((a) => a.id === agent.id)!, agent);
  });

  it('changes the agents with a dangling server and no other (the comparison is not vacuous)', () => {
    expect(agents.filter((a) => expected(a).changed).map((a) => a.name)).toEqual(['Writer', 'Clash', 'Borrower', 'Only gone']);
  });

  it('keeps the rules by a tag a kept server shares, and drops the deleted server its own rule', () => {
    const clash = db.select().from(schema.agents).all().find((a) => a.id === 'agent-clash')!;
    expect(clash.approvalTools).toHaveLength(2);
    expect(clash.approvalTools.some((r) => r.startsWith('mcp_server:'))).toBe(false);
  });
});
