import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, openDatabase, schema, writeTx, type Db } from '@/server/db';
import { closePg, openPg, pgWriteTx } from '@/server/db/pg-engine';

// server/db/pg-engine.ts: within a process writes queue; between processes SERIALIZABLE conflicts are retried from
// the start. A second engine on the same database stands in for another process.

describe('writeTx on Postgres, two processes writing one row', () => {
  it('40 read-modify-write transactions from two processes lose no update', async () => {
    await openDatabase();
    const other = openPg(process.env.DATABASE_URL!);
    try {
      const id = `u-${Math.random().toString(36).slice(2)}`;
      await writeTx((tx) => tx.insert(schema.users).values({ id, email: `${id}@example.test`, passwordHash: 'x', sessionVersion: 0 }));
      const bump = async (tx: Db) => {
        const [row] = await tx.select({ v: schema.users.sessionVersion }).from(schema.users).where(eq(schema.users.id, id));
        await tx.update(schema.users).set({ sessionVersion: row!.v + 1 }).where(eq(schema.users.id, id));
      };
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? writeTx(bump) : pgWriteTx(other, bump))));
      const [row] = await getDb().select({ v: schema.users.sessionVersion }).from(schema.users).where(eq(schema.users.id, id));
      expect(row!.v).toBe(40);
    } finally {
      await closePg(other);
    }
  });
});
