import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { notFound } from '@/server/http/errors';
import type { PublicUser } from './users';

const PREFIX = 'ens_';

const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export type TokenInfo = { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null };

/** Create a personal API token. The plain token is returned once; only its hash is stored. */
export function createApiToken(userId: string, name: string): { token: string; info: TokenInfo } {
  const token = PREFIX + crypto.randomBytes(24).toString('base64url');
  const row = {
    id: crypto.randomUUID(),
    userId,
    name: name.trim(),
    tokenHash: sha256(token),
    prefix: token.slice(0, PREFIX.length + 6),
  };
  getDb().insert(schema.apiTokens).values(row).run();
  const info = getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.id, row.id)).get()!;
  return { token, info: toInfo(info) };
}

export function listApiTokens(userId: string): TokenInfo[] {
  return getDb()
    .select()
    .from(schema.apiTokens)
    .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
    .orderBy(desc(schema.apiTokens.createdAt))
    .all()
    .map(toInfo);
}

export function revokeApiToken(userId: string, tokenId: string): void {
  const res = getDb()
    .update(schema.apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(schema.apiTokens.id, tokenId), eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
    .run();
  if (res.changes === 0) throw notFound('Token');
}

/** The user a bearer token belongs to, or null when it is unknown or revoked. */
export function userForToken(token: string): PublicUser | null {
  if (!token.startsWith(PREFIX)) return null;
  const db = getDb();
  const row = db
    .select({ tokenId: schema.apiTokens.id, id: schema.users.id, email: schema.users.email, name: schema.users.name })
    .from(schema.apiTokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.apiTokens.userId))
    .where(and(eq(schema.apiTokens.tokenHash, sha256(token)), isNull(schema.apiTokens.revokedAt)))
    .get();
  if (!row) return null;
  db.update(schema.apiTokens).set({ lastUsedAt: new Date() }).where(eq(schema.apiTokens.id, row.tokenId)).run();
  return { id: row.id, email: row.email, name: row.name };
}

function toInfo(row: typeof schema.apiTokens.$inferSelect): TokenInfo {
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt };
}
