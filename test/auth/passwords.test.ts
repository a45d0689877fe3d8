import './support/next-auth';
import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from '@/server/auth/passwords';
import { getDb, schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';
import { postCredentials, sessionCookieFrom } from './support/http-auth';

/** A hash in the format used before scrypt: bcrypt of the base64 SHA-256 of the password. */
const legacyBcrypt = (password: string) =>
  bcrypt.hash(crypto.createHash('sha256').update(password, 'utf8').digest('base64'), 4);

describe('password hashes', () => {
  it('are scrypt with their parameters in the string, and verify only the exact password', async () => {
    const hash = await hashPassword('correct horse battery');
    const { N, r, p } = SCRYPT_PARAMS;
    expect(hash).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[\\w-]{22}\\$[\\w-]{43}$`));
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery ', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
    // Salted: the same password hashes differently each time.
    expect(await hashPassword('correct horse battery')).not.toBe(hash);
  });

  it('keep every character significant, long and multi-byte alike', async () => {
    const prefix = 'p'.repeat(72);
    const long = await hashPassword(`${prefix}-one`);
    expect(await verifyPassword(`${prefix}-one`, long)).toBe(true);
    expect(await verifyPassword(`${prefix}-two`, long)).toBe(false);
    const wide = await hashPassword('密码🔒密码🔒');
    expect(await verifyPassword('密码🔒密码🔒', wide)).toBe(true);
    expect(await verifyPassword('密码🔒密码', wide)).toBe(false);
  });

  it('still verify the old bcrypt format (SHA-256 pre-hash), which needs rehashing', async () => {
    const old = await legacyBcrypt('correct horse battery');
    expect(await verifyPassword('correct horse battery', old)).toBe(true);
    expect(await verifyPassword('correct horse batter', old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
  });

  it('need rehashing when made with other parameters, and still verify', async () => {
    const salt = crypto.randomBytes(16);
    const key = crypto.scryptSync('pw-old-params', salt, 32, { N: 256, r: 8, p: 1 });
    const stored = `scrypt$256$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await verifyPassword('pw-old-params', stored)).toBe(true);
    expect(needsRehash(stored)).toBe(true);
  });

  it('never match a malformed or absurd stored hash (and never try to compute it)', async () => {
    const salt = crypto.randomBytes(16).toString('base64url');
    const key = crypto.randomBytes(32).toString('base64url');
    for (const stored of [
      '',
      'plain text',
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 24}$8$1$${salt}$${key}`, // would need gigabytes
      `scrypt$1024$8$99$${salt}$${key}`,
      `scrypt$1024$8$1$$${key}`,
      `md5$abc`,
    ]) {
      expect(await verifyPassword('anything', stored)).toBe(false);
      expect(needsRehash(stored)).toBe(true);
    }
  });
});

describe('signing in with an old bcrypt hash', () => {
  it('works, and replaces the hash with scrypt; the new hash then works too', async () => {
    const ann = await makeUser('ann');
    const users = schema.users;
    const legacy = await legacyBcrypt('correct horse battery');
    await writeTx((tx) => tx.update(users).set({ passwordHash: legacy }).where(eq(users.id, ann.id)));
    const res = await postCredentials({ email: ann.email, password: 'correct horse battery' });
    expect(sessionCookieFrom(res)).toMatch(/^authjs\.session-token=/);
    const stored = (await getDb().select({ h: users.passwordHash }).from(users).where(eq(users.id, ann.id)))[0]!.h;
    expect(stored).toMatch(/^scrypt\$/);
    expect(needsRehash(stored)).toBe(false);
    expect(sessionCookieFrom(await postCredentials({ email: ann.email, password: 'correct horse battery' }))).toMatch(
      /^authjs\.session-token=/,
    );
  });

  it('a wrong password leaves the old hash in place', async () => {
    const ann = await makeUser('ann');
    const old = await legacyBcrypt('correct horse battery');
    await writeTx((tx) => tx.update(schema.users).set({ passwordHash: old }).where(eq(schema.users.id, ann.id)));
    expect(sessionCookieFrom(await postCredentials({ email: ann.email, password: 'wrong' }))).toBeNull();
    expect((await getDb().select({ h: schema.users.passwordHash }).from(schema.users).where(eq(schema.users.id, ann.id)))[0]!.h).toBe(old);
  });
});
