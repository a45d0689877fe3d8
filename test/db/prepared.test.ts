import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import { preparedPerConnection, rawStatement } from '@/server/db/prepared';
import { makeUser } from '../support/users';

// server/db/prepared.ts: statements are built once per connection; a closed and re-opened connection (tests,
// another data directory) gets its own, and a transaction's tx runs them inside the transaction.
describe('statements prepared once per connection', () => {
  it('are built once per connection, again for a re-opened one, and keep working after the reopen', async () => {
    const user = await makeUser('prepared');
    let builds = 0;
    const byId = preparedPerConnection((db) => {
      builds += 1;
      return db.select({ email: schema.users.email }).from(schema.users).where(eq(schema.users.id, sql.placeholder('id'))).prepare();
    });
    const count = rawStatement('select count(*) as n from users where id = ?');

    expect(byId().get({ id: user.id })?.email).toBe(user.email);
    expect(byId(getDb()).get({ id: 'nobody' })).toBeUndefined();
    expect(builds).toBe(1);
    const first = count();
    expect(count()).toBe(first);

    closeDb();
    // A statement of the closed connection would throw ("The database connection is not open").
    expect(byId().get({ id: user.id })?.email).toBe(user.email);
    expect(builds).toBe(2);
    expect(count()).not.toBe(first);
    expect((count().get(user.id) as { n: number }).n).toBe(1);
  });

  it("run inside writeTx's transaction: a rolled-back write is not seen afterwards", async () => {
    const user = await makeUser('prepared-tx');
    const rename = preparedPerConnection((db) =>
      db.update(schema.users).set({ email: sql`${sql.placeholder('email')}` }).where(eq(schema.users.id, sql.placeholder('id'))).prepare(),
    );
    const emailOf = rawStatement('select email from users where id = ?');
    expect(() =>
      writeTx((tx) => {
        rename(tx).run({ id: user.id, email: 'renamed@example.test' });
        expect((emailOf(tx).get(user.id) as { email: string }).email).toBe('renamed@example.test');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect((emailOf().get(user.id) as { email: string }).email).toBe(user.email);
  });
});
