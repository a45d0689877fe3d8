import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { databaseEngine, getDb, schema, writeTx } from '@/server/db';
import { activeEngine } from '@/server/db/active-engine';

// server/db/group-commit.ts: SQLite's write transactions queued behind a running one share its COMMIT (one fsync
// under synchronous=FULL), and each caller still gets writeTx's contract. SQLite only: Postgres commits each
// transaction on its own connection (test/db/write-tx.test.ts holds the contract on both engines).

let n = 0;
const newUser = (label: string) => ({ id: `g-${label}-${++n}-${Math.random().toString(36).slice(2, 8)}`, email: `${label}-${n}-${Math.random()}@example.test`, passwordHash: 'x' });
const emailOf = async (id: string) => (await getDb().select({ email: schema.users.email }).from(schema.users).where(eq(schema.users.id, id)))[0]?.email;

/** Counts the writer's COMMITs; `failNextCommit` makes the next one throw (as a full disk would). */
function watchCommits() {
  const engine = activeEngine();
  if (engine.kind !== 'sqlite') throw new Error('SQLite only');
  const client = engine.sqlite.writer.$client;
  const exec = client.exec.bind(client);
  const seen = { commits: 0, failNextCommit: false };
  vi.spyOn(client, 'exec').mockImplementation((sql: string) => {
    if (sql === 'COMMIT') {
      if (seen.failNextCommit) {
        seen.failNextCommit = false;
        throw new Error('disk I/O error');
      }
      seen.commits += 1;
    }
    return exec(sql);
  });
  return seen;
}

/** A writeTx that holds the writer until released: everything asked meanwhile queues behind it. */
function heldTransaction() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const user = newUser('held');
  const done = writeTx(async (tx) => {
    await tx.insert(schema.users).values(user);
    started();
    await held;
  });
  return { running, release, done, user };
}

afterEach(() => vi.restoreAllMocks());

describe.runIf(databaseEngine() === 'sqlite')('group commit (SQLite)', () => {
  it('transactions queued behind a running one share one COMMIT, and none is answered before it', async () => {
    const commits = watchCommits();
    const first = heldTransaction();
    await first.running;
    const users = Array.from({ length: 10 }, (_, i) => newUser(`q${i}`));
    const answeredAfter: number[] = [];
    const queued = users.map((u) =>
      writeTx(async (tx) => {
        await tx.insert(schema.users).values(u);
        return u.id;
      }).then(async (id) => {
        answeredAfter.push(commits.commits);
        // What must not happen: "done" for work another connection can't read yet.
        expect(await emailOf(id)).toBe(u.email);
      }),
    );
    first.release();
    await first.done;
    await Promise.all(queued);
    // Eleven transactions: the ten queued joined the held one's COMMIT, or shared the next one (if it ran past the
    // group's time bound). What must not happen: one fsync each.
    expect(commits.commits).toBeLessThanOrEqual(2);
    expect(answeredAfter.every((c) => c >= 1)).toBe(true);
  });

  it('a write asked in the same turn as one that just finished joins its COMMIT (the fsync blocks the loop, so none could queue during it)', async () => {
    const commits = watchCommits();
    const a = newUser('turn-a');
    const b = newUser('turn-b');
    let second: Promise<unknown> | undefined;
    await writeTx(async (tx) => {
      await tx.insert(schema.users).values(a);
      // Asked from a callback of this turn, after this body has ended: as a finished run's next step asks.
      setImmediate(() => (second = writeTx((t) => t.insert(schema.users).values(b))));
    });
    await second;
    expect(commits.commits).toBe(1);
    expect(await emailOf(a.id)).toBe(a.email);
    expect(await emailOf(b.id)).toBe(b.email);
  });

  it('a transaction that fails in a group rolls back only its own work and rejects only its caller', async () => {
    const first = heldTransaction();
    await first.running;
    const before = newUser('before');
    const failing = newUser('failing');
    const after = newUser('after');
    const results = Promise.allSettled([
      writeTx((tx) => tx.insert(schema.users).values(before)),
      writeTx(async (tx) => {
        await tx.insert(schema.users).values(failing);
        throw new Error('this one fails');
      }),
      writeTx((tx) => tx.insert(schema.users).values(after)),
    ]);
    first.release();
    const [a, b, c] = await results;
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('this one fails') });
    expect(c.status).toBe('fulfilled');
    expect(await emailOf(before.id)).toBe(before.email);
    expect(await emailOf(failing.id)).toBeUndefined();
    expect(await emailOf(after.id)).toBe(after.email);
  });

  it('a COMMIT that fails fails every caller in its group: nothing acknowledged is missing, nothing refused is written', async () => {
    const commits = watchCommits();
    const first = heldTransaction();
    await first.running;
    const users = [newUser('x'), newUser('y'), newUser('z')];
    const afterCommit = vi.fn();
    const queued = users.map((u) =>
      writeTx(async (tx) => {
        await tx.insert(schema.users).values(u);
        (await import('@/server/db')).afterCommit(() => afterCommit(u.id));
      }),
    );
    commits.failNextCommit = true;
    first.release();
    const settled = await Promise.allSettled([first.done, ...queued]);
    const all = [first.user, ...users];
    // The held one's group is the one whose COMMIT fails (the queued ones joined it, or a later group commits them).
    expect(settled[0]!.status).toBe('rejected');
    expect(await emailOf(first.user.id)).toBeUndefined();
    for (const [i, s] of settled.entries()) {
      const written = (await emailOf(all[i]!.id)) !== undefined;
      expect(written, `${all[i]!.id}: answered ${s.status}`).toBe(s.status === 'fulfilled');
    }
    expect(afterCommit.mock.calls.map(([id]) => id)).toEqual(settled.slice(1).flatMap((s, i) => (s.status === 'fulfilled' ? [users[i]!.id] : [])));
    const later = newUser('later');
    await writeTx((tx) => tx.insert(schema.users).values(later));
    expect(await emailOf(later.id)).toBe(later.email);
  });

  it('the callers of one group go on in turns of the event loop of their own, not back to back', async () => {
    const first = heldTransaction();
    await first.running;
    const resumed: string[] = [];
    const queued = Array.from({ length: 5 }, (_, i) =>
      writeTx((tx) => tx.insert(schema.users).values(newUser(`turn${i}`))).then(() => {
        resumed.push(`caller ${i}`);
        // Another piece of work (a stream's chunk, a request) asked for while the group's callers are resumed.
        if (i === 0) setImmediate(() => resumed.push('other work'));
      }),
    );
    first.release();
    await Promise.all([first.done, ...queued]);
    // What must not happen: all five continuations run back to back with the other work waiting behind them all
    // (a run start's continuation builds its graph: 64 of them at once held the loop for a quarter of a second).
    expect(resumed.indexOf('other work')).toBeGreaterThan(0);
    expect(resumed.indexOf('other work')).toBeLessThan(resumed.indexOf('caller 4'));
    expect(resumed.filter((r) => r.startsWith('caller'))).toEqual(['caller 0', 'caller 1', 'caller 2', 'caller 3', 'caller 4']);
  });

  it('a long queue is split into bounded groups, still in order', async () => {
    const commits = watchCommits();
    const first = heldTransaction();
    await first.running;
    const order: number[] = [];
    const queued = Array.from({ length: 150 }, (_, i) =>
      writeTx(async (tx) => {
        order.push(i);
        await tx.insert(schema.users).values(newUser(`l${i}`));
      }),
    );
    first.release();
    await Promise.all([first.done, ...queued]);
    expect(order).toEqual(Array.from({ length: 150 }, (_, i) => i));
    // 64 per group at most: 151 transactions need at least three groups.
    expect(commits.commits).toBeGreaterThanOrEqual(3);
    expect(commits.commits).toBeLessThan(150);
  });
});
