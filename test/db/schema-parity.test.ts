import { sql } from 'drizzle-orm';
import { bigint, boolean as pgBoolean, index as pgIndex, json, pgTable, PgTable, text as pgText } from 'drizzle-orm/pg-core';
import { index, integer, sqliteTable, SQLiteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pg from '@/server/db/pg-schema';
import * as sqlite from '@/server/db/sqlite-schema';
import { diffSchemas, diffShapes, pgShape, sqliteShape, tablesOf } from './schema-shape';

// ADR 033: one set of domain code for both engines needs server/db/schema.ts and server/db/pg-schema.ts to describe
// the same tables. Kinds and defaults are compared through the stated tables in ./schema-shape.ts.

describe('the SQLite and Postgres schemas', () => {
  it('describe the same tables, columns, kinds, nullability, defaults, keys, indexes and foreign keys', () => {
    expect(diffSchemas(sqlite, pg)).toEqual([]);
  });

  it('have at least the 13 tables the SQLite migrations create (the comparison is not vacuous)', () => {
    const names = [...tablesOf(sqlite, SQLiteTable).keys()].sort();
    expect(names).toEqual([...tablesOf(pg, PgTable).keys()].sort());
    expect(names).toEqual(
      expect.arrayContaining(['users', 'agents', 'conversations', 'runs', 'delegations', 'teams', 'team_members', 'jobs', 'shared_messages', 'state_entries', 'invitations', 'api_tokens', 'sign_in_failures']),
    );
    expect(Object.keys(sqliteShape(sqlite.jobs).columns)).toHaveLength(31);
  });

  it('give domain code the same row types (select and insert) for every table', () => {
    // Checked by tsc (npm run typecheck); the runtime line below makes sure no table is left out of this list.
    expectTypeOf<typeof pg.users.$inferSelect>().toEqualTypeOf<typeof sqlite.users.$inferSelect>();
    expectTypeOf<typeof pg.users.$inferInsert>().toEqualTypeOf<typeof sqlite.users.$inferInsert>();
    expectTypeOf<typeof pg.invitations.$inferSelect>().toEqualTypeOf<typeof sqlite.invitations.$inferSelect>();
    expectTypeOf<typeof pg.invitations.$inferInsert>().toEqualTypeOf<typeof sqlite.invitations.$inferInsert>();
    expectTypeOf<typeof pg.apiTokens.$inferSelect>().toEqualTypeOf<typeof sqlite.apiTokens.$inferSelect>();
    expectTypeOf<typeof pg.apiTokens.$inferInsert>().toEqualTypeOf<typeof sqlite.apiTokens.$inferInsert>();
    expectTypeOf<typeof pg.signInFailures.$inferSelect>().toEqualTypeOf<typeof sqlite.signInFailures.$inferSelect>();
    expectTypeOf<typeof pg.signInFailures.$inferInsert>().toEqualTypeOf<typeof sqlite.signInFailures.$inferInsert>();
    expectTypeOf<typeof pg.agents.$inferSelect>().toEqualTypeOf<typeof sqlite.agents.$inferSelect>();
    expectTypeOf<typeof pg.agents.$inferInsert>().toEqualTypeOf<typeof sqlite.agents.$inferInsert>();
    expectTypeOf<typeof pg.conversations.$inferSelect>().toEqualTypeOf<typeof sqlite.conversations.$inferSelect>();
    expectTypeOf<typeof pg.conversations.$inferInsert>().toEqualTypeOf<typeof sqlite.conversations.$inferInsert>();
    expectTypeOf<typeof pg.runs.$inferSelect>().toEqualTypeOf<typeof sqlite.runs.$inferSelect>();
    expectTypeOf<typeof pg.runs.$inferInsert>().toEqualTypeOf<typeof sqlite.runs.$inferInsert>();
    expectTypeOf<typeof pg.delegations.$inferSelect>().toEqualTypeOf<typeof sqlite.delegations.$inferSelect>();
    expectTypeOf<typeof pg.delegations.$inferInsert>().toEqualTypeOf<typeof sqlite.delegations.$inferInsert>();
    expectTypeOf<typeof pg.teams.$inferSelect>().toEqualTypeOf<typeof sqlite.teams.$inferSelect>();
    expectTypeOf<typeof pg.teams.$inferInsert>().toEqualTypeOf<typeof sqlite.teams.$inferInsert>();
    expectTypeOf<typeof pg.teamMembers.$inferSelect>().toEqualTypeOf<typeof sqlite.teamMembers.$inferSelect>();
    expectTypeOf<typeof pg.teamMembers.$inferInsert>().toEqualTypeOf<typeof sqlite.teamMembers.$inferInsert>();
    expectTypeOf<typeof pg.jobs.$inferSelect>().toEqualTypeOf<typeof sqlite.jobs.$inferSelect>();
    expectTypeOf<typeof pg.jobs.$inferInsert>().toEqualTypeOf<typeof sqlite.jobs.$inferInsert>();
    expectTypeOf<typeof pg.sharedMessages.$inferSelect>().toEqualTypeOf<typeof sqlite.sharedMessages.$inferSelect>();
    expectTypeOf<typeof pg.sharedMessages.$inferInsert>().toEqualTypeOf<typeof sqlite.sharedMessages.$inferInsert>();
    expectTypeOf<typeof pg.stateEntries.$inferSelect>().toEqualTypeOf<typeof sqlite.stateEntries.$inferSelect>();
    expectTypeOf<typeof pg.stateEntries.$inferInsert>().toEqualTypeOf<typeof sqlite.stateEntries.$inferInsert>();
    expectTypeOf<typeof pg.appProcesses.$inferSelect>().toEqualTypeOf<typeof sqlite.appProcesses.$inferSelect>();
    expectTypeOf<typeof pg.appProcesses.$inferInsert>().toEqualTypeOf<typeof sqlite.appProcesses.$inferInsert>();
    expectTypeOf<typeof pg.teamLeases.$inferSelect>().toEqualTypeOf<typeof sqlite.teamLeases.$inferSelect>();
    expectTypeOf<typeof pg.teamLeases.$inferInsert>().toEqualTypeOf<typeof sqlite.teamLeases.$inferInsert>();
    expectTypeOf<typeof pg.schedulerRounds.$inferSelect>().toEqualTypeOf<typeof sqlite.schedulerRounds.$inferSelect>();
    expectTypeOf<typeof pg.schedulerRounds.$inferInsert>().toEqualTypeOf<typeof sqlite.schedulerRounds.$inferInsert>();
    expectTypeOf<typeof pg.providers.$inferSelect>().toEqualTypeOf<typeof sqlite.providers.$inferSelect>();
    expectTypeOf<typeof pg.providers.$inferInsert>().toEqualTypeOf<typeof sqlite.providers.$inferInsert>();
    expectTypeOf<typeof pg.providerCalls.$inferSelect>().toEqualTypeOf<typeof sqlite.providerCalls.$inferSelect>();
    expectTypeOf<typeof pg.providerCalls.$inferInsert>().toEqualTypeOf<typeof sqlite.providerCalls.$inferInsert>();
    expectTypeOf<typeof pg.signInKnownAddresses.$inferSelect>().toEqualTypeOf<typeof sqlite.signInKnownAddresses.$inferSelect>();
    expectTypeOf<typeof pg.signInKnownAddresses.$inferInsert>().toEqualTypeOf<typeof sqlite.signInKnownAddresses.$inferInsert>();
    expectTypeOf<typeof pg.modelPrices.$inferSelect>().toEqualTypeOf<typeof sqlite.modelPrices.$inferSelect>();
    expectTypeOf<typeof pg.modelPrices.$inferInsert>().toEqualTypeOf<typeof sqlite.modelPrices.$inferInsert>();
    expectTypeOf<typeof pg.batches.$inferSelect>().toEqualTypeOf<typeof sqlite.batches.$inferSelect>();
    expectTypeOf<typeof pg.batches.$inferInsert>().toEqualTypeOf<typeof sqlite.batches.$inferInsert>();
    expectTypeOf<typeof pg.batchItems.$inferSelect>().toEqualTypeOf<typeof sqlite.batchItems.$inferSelect>();
    expectTypeOf<typeof pg.batchItems.$inferInsert>().toEqualTypeOf<typeof sqlite.batchItems.$inferInsert>();
    expectTypeOf<typeof pg.mcpServers.$inferSelect>().toEqualTypeOf<typeof sqlite.mcpServers.$inferSelect>();
    expectTypeOf<typeof pg.mcpServers.$inferInsert>().toEqualTypeOf<typeof sqlite.mcpServers.$inferInsert>();
    expectTypeOf<typeof pg.mcpDiscoveries.$inferSelect>().toEqualTypeOf<typeof sqlite.mcpDiscoveries.$inferSelect>();
    expectTypeOf<typeof pg.mcpDiscoveries.$inferInsert>().toEqualTypeOf<typeof sqlite.mcpDiscoveries.$inferInsert>();
    expectTypeOf<typeof pg.skills.$inferSelect>().toEqualTypeOf<typeof sqlite.skills.$inferSelect>();
    expectTypeOf<typeof pg.skills.$inferInsert>().toEqualTypeOf<typeof sqlite.skills.$inferInsert>();
    expectTypeOf<typeof pg.skillFiles.$inferSelect>().toEqualTypeOf<typeof sqlite.skillFiles.$inferSelect>();
    expectTypeOf<typeof pg.skillFiles.$inferInsert>().toEqualTypeOf<typeof sqlite.skillFiles.$inferInsert>();
    expectTypeOf<typeof pg.webCalls.$inferSelect>().toEqualTypeOf<typeof sqlite.webCalls.$inferSelect>();
    expectTypeOf<typeof pg.webCalls.$inferInsert>().toEqualTypeOf<typeof sqlite.webCalls.$inferInsert>();
    expectTypeOf<typeof pg.files.$inferSelect>().toEqualTypeOf<typeof sqlite.files.$inferSelect>();
    expectTypeOf<typeof pg.files.$inferInsert>().toEqualTypeOf<typeof sqlite.files.$inferInsert>();
    expectTypeOf<typeof pg.fileVersions.$inferSelect>().toEqualTypeOf<typeof sqlite.fileVersions.$inferSelect>();
    expectTypeOf<typeof pg.fileVersions.$inferInsert>().toEqualTypeOf<typeof sqlite.fileVersions.$inferInsert>();
    expectTypeOf<typeof pg.fileBlobs.$inferSelect>().toEqualTypeOf<typeof sqlite.fileBlobs.$inferSelect>();
    expectTypeOf<typeof pg.fileBlobs.$inferInsert>().toEqualTypeOf<typeof sqlite.fileBlobs.$inferInsert>();
    expectTypeOf<typeof pg.fileAttachments.$inferSelect>().toEqualTypeOf<typeof sqlite.fileAttachments.$inferSelect>();
    expectTypeOf<typeof pg.fileAttachments.$inferInsert>().toEqualTypeOf<typeof sqlite.fileAttachments.$inferInsert>();
    const typed = [pg.users, pg.invitations, pg.apiTokens, pg.signInFailures, pg.signInKnownAddresses, pg.providerCalls, pg.agents, pg.conversations, pg.runs, pg.delegations, pg.teams, pg.teamMembers, pg.jobs, pg.sharedMessages, pg.stateEntries, pg.appProcesses, pg.teamLeases, pg.schedulerRounds, pg.providers, pg.modelPrices, pg.mcpServers, pg.mcpDiscoveries, pg.batches, pg.batchItems, pg.skills, pg.skillFiles, pg.files, pg.fileVersions, pg.fileBlobs, pg.fileAttachments, pg.webCalls];
    expect(new Set(typed)).toEqual(new Set(tablesOf(pg, PgTable).values()));
  });
});

// Tampered copies: the comparison must notice every kind of drift. Each copy starts from sign_in_failures as both
// schemas declare it (3 columns, one index) and changes one thing on one side.
const sqliteFailures = (extra?: 'column' | 'index') =>
  sqliteTable(
    'sign_in_failures',
    {
      id: integer('id').primaryKey({ autoIncrement: true }),
      key: text('key').notNull(),
      at: integer('at').notNull(),
      ...(extra === 'column' ? { note: text('note') } : {}),
    },
    (t) => [index('sign_in_failures_key_at_idx').on(t.key, t.at), ...(extra === 'index' ? [index('sign_in_failures_at_idx').on(t.at)] : [])],
  );

describe('the comparison', () => {
  it('finds the untampered copy equal to both schemas (the copies below differ only where they say)', () => {
    expect(diffShapes('sign_in_failures', sqliteShape(sqliteFailures()), pgShape(pg.signInFailures))).toEqual([]);
    expect(diffShapes('sign_in_failures', sqliteShape(sqlite.signInFailures), sqliteShape(sqliteFailures()))).toEqual([]);
  });

  it('fails when the SQLite side gains a column or an index', () => {
    expect(diffSchemas({ ...sqlite, signInFailures: sqliteFailures('column') }, pg)).toEqual(['sign_in_failures.note: column only on SQLite']);
    expect(diffSchemas({ ...sqlite, signInFailures: sqliteFailures('index') }, pg)).toEqual([
      'sign_in_failures: only on SQLite: index sign_in_failures_at_idx (at)',
    ]);
  });

  it('fails when the Postgres side loses a column or an index, or gains a unique constraint', () => {
    const lostColumn = pgTable('sign_in_failures', { id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(), key: pgText('key').notNull() }, (t) => [
      pgIndex('sign_in_failures_key_at_idx').on(t.key),
    ]);
    expect(diffSchemas(sqlite, { ...pg, signInFailures: lostColumn })).toEqual([
      'sign_in_failures.at: column only on SQLite',
      'sign_in_failures: only on SQLite: index sign_in_failures_key_at_idx (key, at)',
      'sign_in_failures: only on Postgres: index sign_in_failures_key_at_idx (key)',
    ]);
    const lostIndex = pgTable('sign_in_failures', {
      id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
      key: pgText('key').notNull().unique(),
      at: bigint('at', { mode: 'number' }).notNull(),
    });
    expect(diffSchemas(sqlite, { ...pg, signInFailures: lostIndex })).toEqual([
      'sign_in_failures: only on SQLite: index sign_in_failures_key_at_idx (key, at)',
      'sign_in_failures: only on Postgres: unique sign_in_failures_key_unique (key)',
    ]);
  });

  it('fails on a different kind, nullability, default or key generation', () => {
    const drifted = pgTable('sign_in_failures', {
      id: bigint('id', { mode: 'number' }).primaryKey(),
      key: pgText('key').default(sql`'x'`),
      at: pgBoolean('at').notNull(),
    }, (t) => [pgIndex('sign_in_failures_key_at_idx').on(t.key, t.at)]);
    expect(diffShapes('sign_in_failures', sqliteShape(sqlite.signInFailures), pgShape(drifted))).toEqual([
      'sign_in_failures.id: generated SQLite true ≠ Postgres false',
      'sign_in_failures.key: notNull SQLite true ≠ Postgres false',
      `sign_in_failures.key: default SQLite null ≠ Postgres "sql 'x'"`,
      'sign_in_failures.at: kind SQLite "integer" ≠ Postgres "boolean"',
    ]);
  });

  it('fails when a table exists on one side only', () => {
    const { jobs: _jobs, ...withoutJobs } = pg;
    expect(diffSchemas(sqlite, withoutJobs)).toEqual(['jobs: table only on SQLite']);
    const extra = pgTable('leases', { teamId: pgText('team_id').primaryKey() });
    expect(diffSchemas(sqlite, { ...pg, extra })).toEqual(['leases: table only on Postgres']);
  });

  it('reads defaults through the stated table: equal JSON documents match, different ones do not', () => {
    expect(sqliteShape(sqlite.agents).columns.allowed_subagents!.default).toBe('json "all"');
    expect(pgShape(pg.agents).columns.allowed_subagents!.default).toBe('json "all"');
    expect(pgShape(pg.agents).columns.tool_groups!.default).toBe('json []');
    expect(sqliteShape(sqlite.users).columns.created_at!.default).toBe('now (ms)');
    expect(pgShape(pg.users).columns.created_at!.default).toBe('now (ms)');
    const groups = (doc: string) =>
      pgShape(pgTable('t', { id: pgText('id').primaryKey(), groups: json('groups').default(sql.raw(`'${doc}'::json`)) })).columns.groups!;
    expect(groups('[]').default).toBe('json []');
    expect(groups('{}').default).toBe('json {}');
  });
});
