import { eq, sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { databaseEngine, getDb, schema, writeTx } from '@/server/db';
import { inList, jsonNumber, jsonText } from '@/server/db/dialect';
import { execute, rows, statement, toNumbered } from '@/server/db/statement';

// server/db/statement.ts and dialect.ts (ADR 033 §2): one hand-written SQL text for both engines, with SQLite's row
// shapes on both. Runs in `npm test` (SQLite) and `npm run test:pg` (Postgres); the expectations are the same.

const stamp = new Date('2026-12-01T15:04:05.678Z');

async function seed(label: string) {
  const userId = `u-${label}-${Math.random().toString(36).slice(2, 10)}`;
  await writeTx(async (tx) => {
    await tx.insert(schema.users).values({ id: userId, email: `${userId}@example.test`, passwordHash: 'x', disabledAt: stamp });
    await tx.insert(schema.agents).values({
      id: `a-${userId}`,
      ownerId: userId,
      name: '研究者 🔬',
      nameKey: '研究者 🔬',
      updatedAt: stamp,
      toolGroups: ['delegate', '表'],
    });
  });
  return userId;
}

const userRow = statement('select id, email, disabled_at as "disabledAt", session_version as "sessionVersion" from users where id = ?');

describe('statement()', () => {
  it('answers rows in SQLite shapes: camelCase aliases kept, timestamps as epoch ms, whole numbers as numbers', async () => {
    const id = await seed('shape');
    const row = await userRow.get<{ id: string; disabledAt: number; sessionVersion: number }>(id);
    expect(row).toEqual({ id, email: `${id}@example.test`, disabledAt: stamp.getTime(), sessionVersion: 1 });
    expect(await userRow.get(`${id}-missing`)).toBeUndefined();
  });

  it('binds booleans, Dates and lists on either engine, and answers how many rows a write changed', async () => {
    const a = await seed('bind-a');
    const b = await seed('bind-b');
    const later = new Date(stamp.getTime() + 1);
    const changed = await writeTx(() => statement(`update users set disabled_at = ? where ${inList('id')}`).run(later, [a, b, 'nobody']));
    expect(changed).toBe(2);
    const both = await statement(`select id from users where disabled_at = ? and ${inList('id')} order by id`).all<{ id: string }>(later, [a, b]);
    expect(both.map((r) => r.id)).toEqual([a, b].sort());
    const flag = await statement(`select count(*) as n from users where (? = ?) and id = ?`).get<{ n: number }>(true, true, a);
    expect(flag).toEqual({ n: 1 });
  });

  it('reads JSON members with jsonText/jsonNumber, and JSON columns come back as their text', async () => {
    const id = await seed('json');
    await writeTx((tx) => tx.update(schema.agents).set({ allowedSubagents: ['x'] }).where(eq(schema.agents.ownerId, id)));
    const row = await statement(
      `select tool_groups as "toolGroups", ${jsonText('tool_groups', 1)} as second from agents where owner_id = ?`,
    ).get<{ toolGroups: string; second: string }>(id);
    expect(JSON.parse(row!.toolGroups)).toEqual(['delegate', '表']);
    expect(row!.second).toBe('表');
    const literal = `'{"a":{"b":41.5}}'${databaseEngine() === 'postgres' ? '::json' : ''}`;
    const n = await statement(`select ${jsonNumber(literal, 'a', 'b')} + 0.5 as n`).get<{ n: number }>();
    expect(n).toEqual({ n: 42 });
  });

  it('a write outside writeTx is not how it is done: inside, it is seen by the same transaction and rolled back with it', async () => {
    const id = await seed('rollback');
    await expect(
      writeTx(async () => {
        await statement('update users set name = ? where id = ?').run('名前 ✨', id);
        expect((await statement('select name from users where id = ?').get<{ name: string }>(id))!.name).toBe('名前 ✨');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await statement('select name from users where id = ?').get<{ name: string }>(id))!.name).toBe('');
  });
});

describe('rows() and execute() run drizzle sql templates the same way', () => {
  it('interpolated columns and values, with the same shapes as statement()', async () => {
    const id = await seed('template');
    const found = await rows<{ id: string; disabledAt: number }>(
      sql`select ${schema.users.id} as "id", ${schema.users.disabledAt} as "disabledAt" from ${schema.users} where ${schema.users.id} = ${id}`,
    );
    expect(found).toEqual([{ id, disabledAt: stamp.getTime() }]);
    expect(await writeTx(() => execute(sql`update ${schema.users} set name = ${'n'} where ${schema.users.id} = ${id}`))).toBe(1);
    const [user] = await getDb().select({ name: schema.users.name }).from(schema.users).where(eq(schema.users.id, id));
    expect(user!.name).toBe('n');
  });
});

describe('two copies of the module (Next loads one per route bundle)', () => {
  it('run different statements on one connection without their prepared names colliding', async () => {
    const id = await seed('copies');
    vi.resetModules();
    const other = (await import('@/server/db/statement')).statement;
    await writeTx(async () => {
      // Both run on the transaction's one connection: the first statement each copy prepares must not share a name.
      expect(await statement('select id from users where id = ?').get<{ id: string }>(id)).toEqual({ id });
      expect(await other('select email from users where id = ?').get<{ email: string }>(id)).toEqual({ email: `${id}@example.test` });
      // …and the other copy's query runs inside this transaction: it sees the uncommitted write.
      await statement('update users set name = ? where id = ?').run('in the transaction', id);
      expect(await other('select name from users where id = ?').get<{ name: string }>(id)).toEqual({ name: 'in the transaction' });
    });
  });
});

describe('toNumbered', () => {
  it('numbers placeholders, leaving question marks inside quotes alone', () => {
    expect(toNumbered(`select '?' as "a?", x from t where a = ? and b = ? and c = 'it''s ?'`)).toBe(
      `select '?' as "a?", x from t where a = $1 and b = $2 and c = 'it''s ?'`,
    );
  });
});
