import path from 'node:path';
import Database from 'better-sqlite3';
import { count, eq, sql } from 'drizzle-orm';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as sqliteMigrate } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pgSchema from '@/server/db/pg-schema';
import * as sqliteSchema from '@/server/db/sqlite-schema';
import { freshDatabase, type FreshDatabase } from './support/database';

// test: own process: pins how drizzle and pg read counts as published; the app's pg engine changes pg's parsers
// process-wide when it loads (server/db/pg-engine.ts), as a file before this one in a shared worker may have done.

// The same rows written through both schemas read back as the same JavaScript values: what one set of domain
// code needs beyond equal table shapes (ADR 033). Also pins the engine differences the domain layer must handle.

const root = path.resolve(import.meta.dirname, '..');

const at = (iso: string) => new Date(iso);
const user = { id: 'u1', email: 'zoë@example.com', name: '王小明 👩🏽‍💻', passwordHash: 'h' };
const agent = { id: 'a1', ownerId: 'u1', name: 'Writer', nameKey: 'writer', updatedAt: at('2026-12-01T10:00:00.123Z') };
const conversation = { id: 'c1', ownerId: 'u1', agentId: 'a1', agentName: 'Writer', updatedAt: at('2026-12-01T10:00:00.999Z') };
const run = {
  id: 'r1',
  conversationId: 'c1',
  ownerId: 'u1',
  idempotencyKey: 'k1',
  kind: 'start' as const,
  model: 'scripted',
  // Key order, nesting, non-ASCII and a NUL escape inside JSON all survive a json column as written.
  input: { zeta: 1, alpha: [true, null, 'ß'], nested: { b: 2, a: 1 }, nul: 'a\u0000b' },
  inputTokens: 2 ** 40,
  startedAt: at('1999-12-31T23:59:59.001Z'),
};
const team = { id: 't1', ownerId: 'u1', requestId: 'q1', name: 'Team', goal: 'Goal', updatedAt: at('2026-12-01T10:00:00.000Z') };
const job = {
  id: 'j1',
  teamId: 't1',
  ownerId: 'u1',
  kind: 'request' as const,
  conversationId: 'c1',
  rootId: 'j1',
  text: 'Do it',
  requestKey: 'rk',
  resultTruncated: true,
  updatedAt: at('2026-12-01T10:00:00.500Z'),
};

const others = {
  invitations: { id: 'i1', codeHash: 'ch', createdById: 'u1', expiresAt: at('2027-01-01T00:00:00.001Z') },
  apiTokens: { id: 'k1', userId: 'u1', name: 'ci', tokenHash: 'th', prefix: 'ens_ab', expiresAt: null },
  delegations: {
    id: 'd1',
    ownerId: 'u1',
    parentRunId: 'r1',
    parentConversationId: 'c1',
    parentToolCallId: 'call_1',
    provider: 'scripted',
    spec: { prompt: '/reply hi', tools: [] },
    depth: 1,
  },
  teamMembers: { id: 'm1', teamId: 't1', agentId: 'a1', agentName: 'Writer', name: 'Writer', position: 0, conversationId: 'c1' },
  sharedMessages: { teamId: 't1', jobId: 'j1', kind: 'request' as const, senderLabel: 'You', text: 'Ünïcode ✓ 你好' },
  stateEntries: {
    id: 's1',
    teamId: 't1',
    publicationKey: 'c1:req',
    kind: 'finding' as const,
    title: 'T',
    content: 'C',
    original: { kind: 'finding', title: 'T', content: 'C' },
    updatedAt: at('2026-12-01T10:00:00.042Z'),
  },
};

describe('rows through both schemas', () => {
  let pgDb: FreshDatabase;
  let pg: ReturnType<typeof drizzle<typeof pgSchema>>;
  let lite: ReturnType<typeof sqliteDrizzle<typeof sqliteSchema>>;

  beforeAll(async () => {
    pgDb = await freshDatabase();
    pg = drizzle(pgDb.pool, { schema: pgSchema });
    await migrate(pg, { migrationsFolder: path.join(root, 'drizzle/pg') });
    lite = sqliteDrizzle(new Database(':memory:'), { schema: sqliteSchema });
    sqliteMigrate(lite, { migrationsFolder: path.join(root, 'drizzle') });

    lite.insert(sqliteSchema.users).values(user).run();
    lite.insert(sqliteSchema.agents).values(agent).run();
    lite.insert(sqliteSchema.conversations).values(conversation).run();
    lite.insert(sqliteSchema.runs).values(run).run();
    lite.insert(sqliteSchema.teams).values(team).run();
    lite.insert(sqliteSchema.jobs).values([job, { ...job, id: 'j2', requestKey: 'rk2', resultTruncated: false }]).run();
    lite.insert(sqliteSchema.signInFailures).values([{ key: 'x', at: 1_796_000_000_123 }, { key: 'x', at: 1_796_000_000_124 }]).run();
    for (const table of Object.keys(others) as Array<keyof typeof others>) lite.insert(sqliteSchema[table]).values(others[table]).run();

    await pg.insert(pgSchema.users).values(user);
    await pg.insert(pgSchema.agents).values(agent);
    await pg.insert(pgSchema.conversations).values(conversation);
    await pg.insert(pgSchema.runs).values(run);
    await pg.insert(pgSchema.teams).values(team);
    await pg.insert(pgSchema.jobs).values([job, { ...job, id: 'j2', requestKey: 'rk2', resultTruncated: false }]);
    await pg.insert(pgSchema.signInFailures).values([{ key: 'x', at: 1_796_000_000_123 }, { key: 'x', at: 1_796_000_000_124 }]);
    for (const table of Object.keys(others) as Array<keyof typeof others>) await pg.insert(pgSchema[table]).values(others[table]);
  });
  afterAll(async () => {
    lite?.$client.close();
    await pgDb?.drop();
  });

  /** Database-chosen creation times differ between the engines; each is a Date close to now. */
  function withoutCreatedAt<T extends { createdAt: Date }>(row: T | undefined): Omit<T, 'createdAt'> {
    expect(row?.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(row!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    const { createdAt: _c, ...rest } = row!;
    return rest;
  }

  it('read back equal, defaults included (text, JSON, whole numbers, Dates to the millisecond, booleans)', async () => {
    const pairs: Array<[unknown, unknown]> = [
      [lite.select().from(sqliteSchema.users).get(), (await pg.select().from(pgSchema.users))[0]],
      [lite.select().from(sqliteSchema.agents).get(), (await pg.select().from(pgSchema.agents))[0]],
      [lite.select().from(sqliteSchema.conversations).get(), (await pg.select().from(pgSchema.conversations))[0]],
      [lite.select().from(sqliteSchema.runs).get(), (await pg.select().from(pgSchema.runs))[0]],
      [lite.select().from(sqliteSchema.teams).get(), (await pg.select().from(pgSchema.teams))[0]],
    ];
    for (const [a, b] of pairs) expect(withoutCreatedAt(b as { createdAt: Date })).toEqual(withoutCreatedAt(a as { createdAt: Date }));

    const liteJobs = lite.select().from(sqliteSchema.jobs).orderBy(sqliteSchema.jobs.seq).all().map(withoutCreatedAt);
    const pgJobs = (await pg.select().from(pgSchema.jobs).orderBy(pgSchema.jobs.seq)).map(withoutCreatedAt);
    expect(pgJobs).toEqual(liteJobs);
    expect(pgJobs.map((j) => [j.seq, j.resultTruncated])).toEqual([[1, true], [2, false]]);

    expect(await pg.select().from(pgSchema.signInFailures)).toEqual(lite.select().from(sqliteSchema.signInFailures).all());

    for (const table of Object.keys(others) as Array<keyof typeof others>) {
      // team_members has no creation time; every other table's is chosen by the database.
      const strip = (row: object) => ('createdAt' in row ? withoutCreatedAt(row as { createdAt: Date }) : row);
      const liteRows = (lite.select().from(sqliteSchema[table]).all() as object[]).map(strip);
      const pgRows = ((await pg.select().from(pgSchema[table])) as object[]).map(strip);
      expect(pgRows, table).toEqual(liteRows);
      expect(pgRows, table).toHaveLength(1);
    }
  });

  it('keep JSON exactly as written on Postgres too (json, not jsonb: key order and \\u0000 survive)', async () => {
    const [row] = await pg.select({ input: pgSchema.runs.input }).from(pgSchema.runs);
    expect(JSON.stringify(row!.input)).toBe(JSON.stringify(run.input));
    expect(Object.keys(row!.input as object)).toEqual(['zeta', 'alpha', 'nested', 'nul']);
  });

  it("count through drizzle's count() is a number on both engines; a raw count(*) is a string on Postgres", async () => {
    expect(lite.select({ n: count() }).from(sqliteSchema.jobs).get()).toEqual({ n: 2 });
    expect(await pg.select({ n: count() }).from(pgSchema.jobs)).toEqual([{ n: 2 }]);
    // The rule for shared domain code (ADR 033): aggregates go through count()/mapWith(Number), never a bare sql``.
    expect(lite.select({ n: sql`count(*)` }).from(sqliteSchema.jobs).get()).toEqual({ n: 2 });
    expect(await pg.select({ n: sql`count(*)` }).from(pgSchema.jobs)).toEqual([{ n: '2' }]);
    expect(await pg.select({ n: sql`sum(${pgSchema.runs.inputTokens})`.mapWith(Number) }).from(pgSchema.runs)).toEqual([{ n: 2 ** 40 }]);
  });

  it('differ on a NUL character in text: SQLite stores it, Postgres refuses the write (the domain must strip or refuse it first)', async () => {
    lite.update(sqliteSchema.teams).set({ goal: 'a\u0000b' }).where(eq(sqliteSchema.teams.id, 't1')).run();
    expect(lite.select({ goal: sqliteSchema.teams.goal }).from(sqliteSchema.teams).get()).toEqual({ goal: 'a\u0000b' });
    const refused = await pg.update(pgSchema.teams).set({ goal: 'a\u0000b' }).where(eq(pgSchema.teams.id, 't1')).then(
      () => null,
      (error: Error) => error,
    );
    expect(String((refused?.cause as Error | undefined)?.message)).toMatch(/invalid byte sequence for encoding "UTF8": 0x00/);
  });
});
