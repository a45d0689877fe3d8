import 'server-only';
import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { isUniqueViolation } from '@/server/db/errors';
import { env } from '@/server/env';
import { conflict } from '@/server/http/errors';
import { hashPassword } from './passwords';

export type PublicUser = { id: string; email: string; name: string };
export type Role = (typeof schema.users.$inferSelect)['role'];
export type CreatedUser = PublicUser & { role: Role };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

type NewUser = { email: string; password: string; name?: string };

/**
 * Create an account (the operator's CLI, the admin, the e2e factory: no sign-up gate here; see registration.ts).
 * Without a role the first account of the instance becomes its admin and every later one a member, decided inside
 * the write transaction so two concurrent first accounts can't both be admin.
 */
export async function createUser(input: NewUser, options: { role?: Role } = {}): Promise<CreatedUser> {
  const passwordHash = await hashPassword(input.password);
  return writeTx((tx) => insertUser(tx, { email: input.email, name: input.name, passwordHash, role: options.role }));
}

/**
 * Write a user row inside the caller's writeTx (database work only: no hashing in there). The role defaults as
 * createUser says. A taken email throws 409 email_taken.
 */
export async function insertUser(tx: Db, input: { email: string; name?: string; passwordHash: string; role?: Role }): Promise<CreatedUser> {
  const email = normalizeEmail(input.email);
  const [existing] = await tx.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.email, email)).limit(1);
  if (existing) throw emailTaken();
  const role = input.role ?? ((await hasAnyUser(tx)) ? 'member' : 'admin');
  const row = { id: crypto.randomUUID(), email, name: input.name?.trim() ?? '', passwordHash: input.passwordHash, role };
  try {
    await tx.insert(schema.users).values(row);
  } catch (err) {
    // Belt and braces: the unique index decides, and the loser hears the same answer.
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  return { id: row.id, email: row.email, name: row.name, role };
}

const emailTaken = () => conflict('email_taken', 'An account with this email already exists');


/** Whether the instance has any account yet (before the first one, sign-up is open so someone can become admin). */
export async function hasAnyUser(db: Db = getDb()): Promise<boolean> {
  return (await db.select({ id: schema.users.id }).from(schema.users).limit(1)).length > 0;
}

export async function findUserByEmail(email: string) {
  return (await getDb().select().from(schema.users).where(eq(schema.users.email, normalizeEmail(email))).limit(1))[0];
}

export async function findUserById(id: string) {
  return (await getDb().select().from(schema.users).where(eq(schema.users.id, id)))[0];
}

/**
 * Revoke every session of a user: JWTs issued under an older version stop working. In the caller's writeTx when
 * given its handle, else in a write transaction of its own.
 */
export async function bumpSessionVersion(userId: string, tx?: Db): Promise<void> {
  if (!tx) return writeTx((own) => bumpSessionVersion(userId, own));
  await tx
    .update(schema.users)
    .set({ sessionVersion: sql`${schema.users.sessionVersion} + 1` })
    .where(eq(schema.users.id, userId));
}

/** ALLOW_SIGNUP=true (or 1/yes/on) lets anyone create an account after the first; by default only invitations do. */
export const signUpAllowedByEnv = () => env.allowSignup;

/**
 * Whether the sign-up form is open to anyone right now: before the first account exists (it becomes the admin),
 * or when ALLOW_SIGNUP=true. Otherwise only an invitation link opens it.
 */
export const signUpEnabled = async () => signUpAllowedByEnv() || !(await hasAnyUser());
