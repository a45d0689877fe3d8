import 'server-only';
import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { conflict } from '@/server/http/errors';
import { hashPassword } from './passwords';

export type PublicUser = { id: string; email: string; name: string };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function createUser(input: { email: string; password: string; name?: string }): Promise<PublicUser> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const db = getDb();
  const existing = db.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.email, email)).get();
  if (existing) throw emailTaken();
  const row = { id: crypto.randomUUID(), email, name: input.name?.trim() ?? '', passwordHash };
  try {
    db.insert(schema.users).values(row).run();
  } catch (err) {
    // Two sign-ups racing for one email: the unique index decides, and the loser hears the same answer.
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw emailTaken();
    throw err;
  }
  return { id: row.id, email: row.email, name: row.name };
}

const emailTaken = () => conflict('email_taken', 'An account with this email already exists');

export function findUserByEmail(email: string) {
  return getDb().select().from(schema.users).where(eq(schema.users.email, normalizeEmail(email))).get();
}

export function findUserById(id: string) {
  return getDb().select().from(schema.users).where(eq(schema.users.id, id)).get();
}

/** Revoke every session of a user: JWTs issued under an older version stop working. */
export function bumpSessionVersion(userId: string): void {
  getDb()
    .update(schema.users)
    .set({ sessionVersion: sql`${schema.users.sessionVersion} + 1` })
    .where(eq(schema.users.id, userId))
    .run();
}

export const signUpEnabled = () => !['0', 'false', 'no', 'off'].includes((process.env.ALLOW_SIGNUP ?? 'true').toLowerCase());
