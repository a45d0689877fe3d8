// test:pg skip: SQLite's statement cache (server/db/statement-cache.ts); Postgres compiles through named statements.
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { cacheStatements } from '@/server/db/statement-cache';

// server/db/statement-cache.ts: a connection compiles each SQL text once, and a caller can't tell a statement handed
// out again from a fresh one.

const notes = sqliteTable('notes', { id: integer('id').primaryKey(), body: text('body').notNull() });

/** An in-memory connection whose compiles are counted under the cache. */
function connection(limit?: number) {
  const client = new Database(':memory:');
  client.exec('create table notes (id integer primary key, body text not null)');
  const compile = client.prepare.bind(client);
  const compiled: string[] = [];
  client.prepare = ((source: string) => {
    compiled.push(source);
    return compile(source);
  }) as Database.Database['prepare'];
  cacheStatements(client, limit);
  return { client, compiled, db: drizzle(client) };
}

describe('the statement cache', () => {
  it('compiles a drizzle builder query once however often it runs, with fresh values each time', async () => {
    const { compiled, db } = connection();
    for (const [id, body] of [[1, 'ascii'], [2, '漢字のメモ'], [3, '🦊 note']] as const) await db.insert(notes).values({ id, body });
    const bodies: string[] = [];
    for (const id of [1, 2, 3]) bodies.push((await db.select().from(notes).where(eq(notes.id, id)))[0]!.body);
    expect(bodies).toEqual(['ascii', '漢字のメモ', '🦊 note']);
    // One insert text and one select text, each compiled once: not six compiles.
    expect(compiled).toHaveLength(2);
  });

  it('hands a statement out again in the default row mode, whatever the last caller switched it to', () => {
    const { client } = connection();
    client.prepare('insert into notes (id, body) values (?, ?)').run(1, 'one');
    const text = 'select id, body from notes';
    // drizzle's own pattern: raw arrays through a statement it never switches back.
    expect(client.prepare(text).raw().all()).toEqual([[1, 'one']]);
    expect(client.prepare(text).all()).toEqual([{ id: 1, body: 'one' }]);
    expect(client.prepare('select body from notes').pluck().get()).toBe('one');
    expect(client.prepare('select body from notes').get()).toEqual({ body: 'one' });
    expect(client.prepare(text).expand().get()).toEqual({ notes: { id: 1, body: 'one' } });
    expect(client.prepare(text).get()).toEqual({ id: 1, body: 'one' });
  });

  it('never shares a statement that is busy: a text asked for again mid-iteration gets a statement of its own', () => {
    const { client, compiled } = connection();
    for (let i = 1; i <= 3; i++) client.prepare('insert into notes (id, body) values (?, ?)').run(i, `n${i}`);
    const text = 'select id from notes order by id';
    const outer = client.prepare(text);
    const inner: number[][] = [];
    for (const row of outer.iterate() as IterableIterator<{ id: number }>) {
      // What must not happen: "This statement is busy executing a query".
      inner.push((client.prepare(text).all() as Array<{ id: number }>).map((r) => r.id));
      expect(row.id).toBeGreaterThan(0);
    }
    expect(inner).toEqual([[1, 2, 3], [1, 2, 3], [1, 2, 3]]);
    expect(compiled.filter((s) => s === text)).toHaveLength(4);
    // Once the iterator is done, the cached one is handed out again.
    expect(client.prepare(text)).toBe(outer);
  });

  it('keeps at most its limit of texts, dropping the least recently used: at the limit nothing is compiled again, one past it the oldest is', () => {
    const { client, compiled } = connection(3);
    for (const t of ['select 1', 'select 2', 'select 3']) client.prepare(t);
    // At the limit: all three stay compiled, used in this order (so 'select 3' is now the least recently used).
    for (const t of ['select 3', 'select 2', 'select 1']) client.prepare(t);
    expect(compiled).toHaveLength(3);
    client.prepare('select 4'); // one past the limit: 'select 3' goes
    client.prepare('select 1');
    client.prepare('select 2');
    expect(compiled).toHaveLength(4);
    client.prepare('select 3');
    expect(compiled.slice(4)).toEqual(['select 3']);
  });

  it('follows a schema change under a cached statement (SQLite recompiles it)', () => {
    const { client } = connection();
    client.prepare('insert into notes (id, body) values (?, ?)').run(1, 'one');
    expect(client.prepare('select * from notes').get()).toEqual({ id: 1, body: 'one' });
    client.exec(`alter table notes add column tag text not null default 'new'`);
    expect(client.prepare('select * from notes').get()).toEqual({ id: 1, body: 'one', tag: 'new' });
  });
});
