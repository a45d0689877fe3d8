import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { afterCommit, databaseEngine, getDb, readTx, schema, writeTx } from '@/server/db';

// server/db (ADR 033 §3): writeTx's contract on either engine — everything in fn commits together, as if no other
// writer ran meanwhile; afterCommit runs once after COMMIT, never after a rollback; getDb() inside a transaction is
// the transaction, outside it reads committed rows only. Runs in `npm test` (SQLite) and `npm run test:pg`.

let n = 0;
const newUser = (label: string) => ({ id: `u-${label}-${++n}-${Math.random().toString(36).slice(2, 8)}`, email: `${label}-${n}-${Math.random()}@example.test`, passwordHash: 'x' });

async function emailOf(id: string): Promise<string | undefined> {
  return (await getDb().select({ email: schema.users.email }).from(schema.users).where(eq(schema.users.id, id)))[0]?.email;
}

describe('writeTx', () => {
  it('commits everything fn wrote and answers what fn returned', async () => {
    const a = newUser('a');
    const b = newUser('b');
    const answer = await writeTx(async (tx) => {
      await tx.insert(schema.users).values(a);
      await tx.insert(schema.users).values(b);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await emailOf(a.id)).toBe(a.email);
    expect(await emailOf(b.id)).toBe(b.email);
  });

  it('rolls everything back when fn throws: no half of it is ever visible', async () => {
    const a = newUser('a');
    await expect(
      writeTx(async (tx) => {
        await tx.insert(schema.users).values(a);
        expect(await emailOf(a.id)).toBe(a.email); // getDb() inside is the transaction: it sees its own write
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await emailOf(a.id)).toBeUndefined();
  });

  it('reads outside a transaction never see its uncommitted writes', async () => {
    const a = newUser('a');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedSignal = new Promise<void>((resolve) => (inserted = resolve));
    const tx = writeTx(async (t) => {
      await t.insert(schema.users).values(a);
      inserted();
      await held;
    });
    await insertedSignal;
    expect(await emailOf(a.id)).toBeUndefined(); // outside the open transaction: not committed, not seen
    release();
    await tx;
    expect(await emailOf(a.id)).toBe(a.email);
  });

  it('a nested writeTx is a savepoint: its failure undoes only its own writes', async () => {
    const outer = newUser('outer');
    const inner = newUser('inner');
    await writeTx(async (tx) => {
      await tx.insert(schema.users).values(outer);
      await expect(
        writeTx(async (t) => {
          await t.insert(schema.users).values(inner);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      expect(await emailOf(inner.id)).toBeUndefined();
    });
    expect(await emailOf(outer.id)).toBe(outer.email);
    expect(await emailOf(inner.id)).toBeUndefined();
  });

  it('runs afterCommit callbacks once, after the commit, in order; never after a rollback or for a failed savepoint', async () => {
    const seen: string[] = [];
    const a = newUser('a');
    await writeTx(async (tx) => {
      afterCommit(() => seen.push(`first:${a.id}`));
      await tx.insert(schema.users).values(a);
      await writeTx(async () => afterCommit(() => seen.push('kept savepoint')));
      await writeTx(async () => {
        afterCommit(() => seen.push('failed savepoint'));
        throw new Error('undo');
      }).catch((error: Error) => expect(error.message).toBe('undo'));
      afterCommit(() => seen.push('last'));
      expect(seen).toEqual([]); // nothing before COMMIT
    });
    expect(seen).toEqual([`first:${a.id}`, 'kept savepoint', 'last']);

    const rolledBack: string[] = [];
    await expect(
      writeTx(async () => {
        afterCommit(() => rolledBack.push('must not run'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(rolledBack).toEqual([]);
  });

  it('an afterCommit callback runs outside the transaction: what it reads is committed', async () => {
    const a = newUser('a');
    let readInCallback: Promise<string | undefined> | undefined;
    await writeTx(async (tx) => {
      await tx.insert(schema.users).values(a);
      afterCommit(() => (readInCallback = emailOf(a.id)));
    });
    expect(await readInCallback).toBe(a.email);
  });

  it('20 concurrent read-modify-write transactions lose no update (as if each ran alone)', async () => {
    const a = newUser('counter');
    await writeTx((tx) => tx.insert(schema.users).values({ ...a, sessionVersion: 0 }));
    await Promise.all(
      Array.from({ length: 20 }, () =>
        writeTx(async (tx) => {
          const [row] = await tx.select({ v: schema.users.sessionVersion }).from(schema.users).where(eq(schema.users.id, a.id));
          await tx.update(schema.users).set({ sessionVersion: row!.v + 1 }).where(eq(schema.users.id, a.id));
        }),
      ),
    );
    const [row] = await getDb().select({ v: schema.users.sessionVersion }).from(schema.users).where(eq(schema.users.id, a.id));
    expect(row!.v).toBe(20);
  });

  it.runIf(databaseEngine() === 'sqlite')('SQLite: a write outside writeTx is refused, not slipped into someone else\'s transaction', async () => {
    const a = newUser('outside');
    await expect(getDb().insert(schema.users).values(a).then(() => 'written')).rejects.toThrow(/readonly/);
    expect(await emailOf(a.id)).toBeUndefined();
  });
});

describe('readTx', () => {
  it('a snapshot held open does not make plain reads elsewhere miss what was committed since', async () => {
    const a = newUser('fresh');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const openedSignal = new Promise<void>((resolve) => (opened = resolve));
    const snapshot = readTx(async (db) => {
      await db.select({ id: schema.users.id }).from(schema.users).limit(1);
      opened();
      await held;
    });
    await openedSignal;
    await writeTx((tx) => tx.insert(schema.users).values(a));
    expect(await emailOf(a.id)).toBe(a.email); // read your own write, whatever snapshot another request holds
    release();
    await snapshot;
  });

  it('sees one snapshot: a write committed while it runs is not seen by its later reads', async () => {
    const a = newUser('snapshot');
    const seen = await readTx(async (db) => {
      const before = await db.select({ id: schema.users.id }).from(schema.users);
      await writeTx((tx) => tx.insert(schema.users).values(a));
      const after = await db.select({ id: schema.users.id }).from(schema.users);
      return { before: before.length, after: after.length };
    });
    expect(seen.after).toBe(seen.before);
    expect(await emailOf(a.id)).toBe(a.email);
  });
});

describe('a failed statement caught inside writeTx', () => {
  it('inside a nested writeTx, only the savepoint is undone and the rest commits (both engines)', async () => {
    const a = newUser('kept');
    await writeTx(async (tx) => {
      await tx.insert(schema.users).values(a);
      const duplicate = await writeTx((t) => t.insert(schema.users).values({ ...newUser('dup'), email: a.email })).then(
        () => 'inserted',
        () => 'refused',
      );
      expect(duplicate).toBe('refused');
    });
    expect(await emailOf(a.id)).toBe(a.email);
  });

  it.runIf(databaseEngine() === 'postgres')('Postgres: caught without a savepoint, the commit is refused loudly, never a silent rollback', async () => {
    const a = newUser('lost');
    await expect(
      writeTx(async (tx) => {
        await tx.insert(schema.users).values(a);
        const duplicate = await tx.insert(schema.users).values({ ...newUser('dup'), email: a.email }).then(
          () => 'inserted',
          () => 'refused',
        );
        expect(duplicate).toBe('refused');
      }),
    ).rejects.toThrow(/rolled back at COMMIT/);
    expect(await emailOf(a.id)).toBeUndefined();
  });
});
