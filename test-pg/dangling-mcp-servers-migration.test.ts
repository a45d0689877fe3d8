import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '@/server/db/pg-schema';
import { agentRows, agents, expectAsDeletingLeft, expected, migrationsBefore, servers, users } from '@/test/db/dangling-mcp-servers';
import { freshDatabase, type FreshDatabase } from './support/database';

// The Postgres twin of test/db/dangling-mcp-servers-migration.test.ts: migration 0020 takes MCP servers that no
// longer exist (or that the agent's owner may not use) out of agents, with their approval rules, as a delete does now.

const folder = path.resolve(import.meta.dirname, '../drizzle/pg');
let db: FreshDatabase;

beforeAll(async () => {
  db = await freshDatabase();
  const orm = drizzle(db.pool, { schema });
  await migrate(orm, { migrationsFolder: migrationsBefore(folder, '0020_dangling_mcp_servers') });
  await orm.insert(schema.users).values(users);
  await orm.insert(schema.mcpServers).values(servers);
  await orm.insert(schema.agents).values(agentRows);
  await migrate(orm, { migrationsFolder: folder });
});
afterAll(async () => {
  await db?.drop();
});

describe('migration 0020 (Postgres): MCP servers that no longer exist, out of agents', () => {
  it.each(agents.map((a) => [a.name, a] as const))('%s holds what deleting those servers would have left', async (_name, agent) => {
    const rows = await drizzle(db.pool, { schema }).select().from(schema.agents);
    expectAsDeletingLeft(rows.find((a) => a.id === agent.id)!, agent);
  });

  it('changes the agents with a dangling server and no other (the comparison is not vacuous)', () => {
    expect(agents.filter((a) => expected(a).changed).map((a) => a.name)).toEqual(['Writer', 'Clash', 'Borrower', 'Only gone']);
  });
});
