import 'server-only';
import crypto from 'node:crypto';
import { and, count, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { ApiTokenView } from '@/lib/types/api-token';
import type { ApiTokenScope } from '@/lib/types/api-token';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { conflict, notFound } from '@/server/http/errors';
import { sessionsEnded } from './confirm-password';
import { announceCredentialsChanged } from '@/server/push/bus';
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
  scope: ApiTokenScope;
};

const DAY_MS = 24 * 60 * 60_000;

/** When a token created now for `days` days expires (null: never). */
export const tokenExpiry = (days: number | null, from = new Date()) => (days === null ? null : new Date(from.getTime() + days * DAY_MS));

/** A token works while now < expiresAt: at the expiry instant it has stopped. */
const live = (at: Date) => or(isNull(schema.apiTokens.expiresAt), gt(schema.apiTokens.expiresAt, at));

/**
 * Create a personal API token. The plain token is returned once; only its hash is stored.
 * A user holds at most LIMITS.apiToken.perUser unrevoked, unexpired tokens (409 token_limit beyond that).
 * Callers that act for a person check their password first (the API route and the Settings form do), and pass the
 * session version the caller was authenticated under: a password change (or sign out everywhere) that committed
 * since revoked every token, so this one must not be made either (409 password_changed; ADR 041).
 */
export async function createApiToken(
  userId: string,
  name: string,
  options: { expiresAt?: Date | null; scope?: ApiTokenScope; sessionVersion?: number } = {},
): Promise<{ token: string; info: TokenInfo }> {
  const token = PREFIX + crypto.randomBytes(24).toString('base64url');
  const row = {
    id: crypto.randomUUID(),
    userId,
    name: name.trim(),
    tokenHash: sha256(token),
    prefix: token.slice(0, PREFIX.length + 6),
    expiresAt: options.expiresAt ?? null,
    scope: options.scope ?? 'full',
  };
  const info = await writeTx(async (tx) => {
    if (options.sessionVersion !== undefined) {
      const [account] = await tx.select({ sessionVersion: schema.users.sessionVersion }).from(schema.users).where(eq(schema.users.id, userId));
      if (account?.sessionVersion !== options.sessionVersion) throw sessionsEnded();
    }
    const [active] = await tx
      .select({ n: count() })
      .from(schema.apiTokens)
      .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt), live(new Date())));
    if ((active?.n ?? 0) >= LIMITS.apiToken.perUser) {
      throw conflict('token_limit', `You can have at most ${LIMITS.apiToken.perUser} API tokens; revoke one first`);
    }
    await tx.insert(schema.apiTokens).values(row);
    return (await tx.select().from(schema.apiTokens).where(eq(schema.apiTokens.id, row.id)))[0]!;
  });
  return { token, info: toInfo(info) };
}

/** The user's unrevoked tokens, newest first; expired ones are listed too (the view marks them). */
export async function listApiTokens(userId: string): Promise<TokenInfo[]> {
  const rows = await getDb()
    .select()
    .from(schema.apiTokens)
    .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
    .orderBy(desc(schema.apiTokens.createdAt));
  return rows.map(toInfo);
}

export async function revokeApiToken(userId: string, tokenId: string): Promise<void> {
  const revoked = await writeTx(async (tx) =>
    tx
      .update(schema.apiTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(schema.apiTokens.id, tokenId), eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
      .returning({ id: schema.apiTokens.id }),
  );
  if (revoked.length === 0) throw notFound('Token');
  // Streams opened with this token close now (ADR 040).
  announceCredentialsChanged(userId);
}

/**
 * Revoke every live token of an account, inside the caller's write (a password change, disabling the account, sign
 * out everywhere): whatever ends the account's credentials ends its tokens in the same commit. Returns how many.
 */
export async function revokeAllApiTokens(tx: Db, userId: string, at = new Date()): Promise<number> {
  const revoked = await tx
    .update(schema.apiTokens)
    .set({ revokedAt: at })
    .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
    .returning({ id: schema.apiTokens.id });
  return revoked.length;
}

/** The user a bearer token belongs to, or null when it is unknown, revoked or expired. */
export async function userForToken(token: string): Promise<PublicUser | null> {
  return (await tokenOwner(token))?.user ?? null;
}

/** As userForToken, with what the token may do. */
export async function tokenOwner(token: string): Promise<{ user: PublicUser; scope: ApiTokenScope } | null> {
  if (!token.startsWith(PREFIX)) return null;
  const now = new Date();
  const [row] = await getDb()
    .select({
      tokenId: schema.apiTokens.id,
      lastUsedAt: schema.apiTokens.lastUsedAt,
      scope: schema.apiTokens.scope,
      id: schema.users.id,
      email: schema.users.email,
      name: schema.users.name,
    })
    .from(schema.apiTokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.apiTokens.userId))
    .where(and(eq(schema.apiTokens.tokenHash, sha256(token)), isNull(schema.apiTokens.revokedAt), live(now)))
    .limit(1);
  if (!row) return null;
  // "Last used" is for people, to the minute: skip the write when it is already that fresh.
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await writeTx(async (tx) => {
      await tx.update(schema.apiTokens).set({ lastUsedAt: now }).where(eq(schema.apiTokens.id, row.tokenId));
    });
  }
  return { user: { id: row.id, email: row.email, name: row.name }, scope: row.scope };
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
    scope: info.scope,
  };
}

function toInfo(row: typeof schema.apiTokens.$inferSelect): TokenInfo {
  const { id, name, prefix, createdAt, lastUsedAt, expiresAt, scope } = row;
  return { id, name, prefix, createdAt, lastUsedAt, expiresAt, scope };
}
