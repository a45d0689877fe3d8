import 'server-only';
import crypto from 'node:crypto';
import { and, count, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { ApiTokenView } from '@/lib/schemas/auth';
import { getDb, schema, writeTx } from '@/server/db';
import { conflict, notFound } from '@/server/http/errors';
import type { PublicUser } from './users';

const PREFIX = 'ens_';
const LAST_USED_RESOLUTION_MS = 60_000;

const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export type TokenInfo = {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
};

const DAY_MS = 24 * 60 * 60_000;

/** When a token created now for `days` days expires (null: never). */
export const tokenExpiry = (days: number | null, from = new Date()) => (days === null ? null : new Date(from.getTime() + days * DAY_MS));

/** A token works while now < expiresAt: at the expiry instant it has stopped. */
const live = (at: Date) => or(isNull(schema.apiTokens.expiresAt), gt(schema.apiTokens.expiresAt, at));

/**
 * Create a personal API token. The plain token is returned once; only its hash is stored.
 * A user holds at most LIMITS.apiToken.perUser unrevoked, unexpired tokens (409 token_limit beyond that).
 * Callers that act for a person check their password first (the API route and the Settings form do).
 */
export function createApiToken(
  userId: string,
  name: string,
  options: { expiresAt?: Date | null } = {},
): { token: string; info: TokenInfo } {
  const token = PREFIX + crypto.randomBytes(24).toString('base64url');
  const row = {
    id: crypto.randomUUID(),
    userId,
    name: name.trim(),
    tokenHash: sha256(token),
    prefix: token.slice(0, PREFIX.length + 6),
    expiresAt: options.expiresAt ?? null,
  };
  const info = writeTx((tx) => {
    const active = tx
      .select({ n: count() })
      .from(schema.apiTokens)
      .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt), live(new Date())))
      .get();
    if ((active?.n ?? 0) >= LIMITS.apiToken.perUser) {
      throw conflict('token_limit', `You can have at most ${LIMITS.apiToken.perUser} API tokens; revoke one first`);
    }
    tx.insert(schema.apiTokens).values(row).run();
    return tx.select().from(schema.apiTokens).where(eq(schema.apiTokens.id, row.id)).get()!;
  });
  return { token, info: toInfo(info) };
}

/** The user's unrevoked tokens, newest first; expired ones are listed too (the view marks them). */
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

/** The user a bearer token belongs to, or null when it is unknown, revoked or expired. */
export function userForToken(token: string): PublicUser | null {
  if (!token.startsWith(PREFIX)) return null;
  const now = new Date();
  const db = getDb();
  const row = db
    .select({
      tokenId: schema.apiTokens.id,
      lastUsedAt: schema.apiTokens.lastUsedAt,
      id: schema.users.id,
      email: schema.users.email,
      name: schema.users.name,
    })
    .from(schema.apiTokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.apiTokens.userId))
    .where(and(eq(schema.apiTokens.tokenHash, sha256(token)), isNull(schema.apiTokens.revokedAt), live(now)))
    .get();
  if (!row) return null;
  // "Last used" is for people, to the minute: skip the write when it is already that fresh.
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    db.update(schema.apiTokens).set({ lastUsedAt: now }).where(eq(schema.apiTokens.id, row.tokenId)).run();
  }
  return { id: row.id, email: row.email, name: row.name };
}

/** The JSON shape the API and the Settings page use. */
export function tokenView(info: TokenInfo, now = new Date()): ApiTokenView {
  return {
    id: info.id,
    name: info.name,
    prefix: info.prefix,
    createdAt: info.createdAt.toISOString(),
    lastUsedAt: info.lastUsedAt ? info.lastUsedAt.toISOString() : null,
    expiresAt: info.expiresAt ? info.expiresAt.toISOString() : null,
    expired: info.expiresAt !== null && info.expiresAt.getTime() <= now.getTime(),
  };
}

function toInfo(row: typeof schema.apiTokens.$inferSelect): TokenInfo {
  const { id, name, prefix, createdAt, lastUsedAt, expiresAt } = row;
  return { id, name, prefix, createdAt, lastUsedAt, expiresAt };
}
