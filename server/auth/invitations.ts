import 'server-only';
import crypto from 'node:crypto';
import { and, count, desc, eq, gt, isNull } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { LIMITS } from '@/lib/limits';
import { AUTH_MESSAGES } from '@/lib/schemas/auth';
import type { CreatedInvitation, InvitationStatus, InvitationView } from '@/lib/schemas/admin';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { AppError, conflict, notFound } from '@/server/http/errors';

/**
 * Invitation links: an admin creates one while sign-up is closed, the person signs up through
 * /sign-up?invite=CODE. A code is 192 random bits, stored only as its SHA-256; it works once, until it expires or
 * is revoked. Using it is part of the account's own write transaction (registration.ts), so two sign-ups with one
 * code make one account.
 */

const PREFIX = 'inv_';
const DAY_MS = 24 * 60 * 60_000;
const LISTED = 200;

const sha256 = (code: string) => crypto.createHash('sha256').update(code).digest('hex');

export const signUpPath = (code: string) => `/sign-up?invite=${encodeURIComponent(code)}`;

type Row = typeof schema.invitations.$inferSelect;

export function invitationStatus(row: Pick<Row, 'usedAt' | 'revokedAt' | 'expiresAt'>, now = Date.now()): InvitationStatus {
  if (row.usedAt) return 'used';
  if (row.revokedAt) return 'revoked';
  return row.expiresAt.getTime() > now ? 'open' : 'expired';
}

/** Create an invitation; the code is in this answer only. At most LIMITS.invitation.maxOpen open ones at a time. */
export async function createInvitation(createdById: string, input: { expiresInDays: number; note?: string }): Promise<CreatedInvitation> {
  const code = PREFIX + crypto.randomBytes(24).toString('base64url');
  const now = Date.now();
  const row = {
    id: crypto.randomUUID(),
    codeHash: sha256(code),
    createdById,
    note: input.note?.trim() ?? '',
    expiresAt: new Date(now + input.expiresInDays * DAY_MS),
  };
  const created = await writeTx(async (tx) => {
    const [open] = await tx
      .select({ n: count() })
      .from(schema.invitations)
      .where(and(isNull(schema.invitations.usedAt), isNull(schema.invitations.revokedAt), gt(schema.invitations.expiresAt, new Date(now))));
    if ((open?.n ?? 0) >= LIMITS.invitation.maxOpen) {
      throw conflict('invitation_limit', `At most ${LIMITS.invitation.maxOpen} invitations can be open at once; revoke one first`);
    }
    await tx.insert(schema.invitations).values(row);
    return (await tx.select().from(schema.invitations).where(eq(schema.invitations.id, row.id)))[0]!;
  });
  return { ...toView(created, null), code, path: signUpPath(code) };
}

/** The newest invitations of the instance (every admin sees all of them), with who used each. */
export async function listInvitations(): Promise<InvitationView[]> {
  const usedBy = alias(schema.users, 'used_by');
  const rows = await getDb()
    .select({ invitation: schema.invitations, usedBy: { id: usedBy.id, email: usedBy.email } })
    .from(schema.invitations)
    .leftJoin(usedBy, eq(usedBy.id, schema.invitations.usedById))
    .orderBy(desc(schema.invitations.createdAt), desc(schema.invitations.id))
    .limit(LISTED);
  return rows.map(({ invitation, usedBy: user }) => toView(invitation, user?.id ? user : null));
}

/** Revoke an unused invitation (again: no change). A used one answers 409; an unknown id 404. */
export async function revokeInvitation(id: string): Promise<void> {
  await writeTx(async (tx) => {
    const [row] = await tx.select().from(schema.invitations).where(eq(schema.invitations.id, id));
    if (!row) throw notFound('Invitation');
    if (row.usedAt) throw conflict('invitation_used', 'This invitation was already used; disable the account instead');
    if (row.revokedAt) return;
    await tx.update(schema.invitations).set({ revokedAt: new Date() }).where(eq(schema.invitations.id, id));
  });
}

/** Whether a code would admit someone right now (the sign-up page's hint; the decision is consumeInvitation's). */
export async function invitationIsOpen(code: string): Promise<boolean> {
  if (!looksLikeCode(code)) return false;
  const [row] = await getDb().select().from(schema.invitations).where(eq(schema.invitations.codeHash, sha256(code))).limit(1);
  return row !== undefined && invitationStatus(row) === 'open';
}

export const invitationInvalid = () => new AppError(403, 'invitation_invalid', AUTH_MESSAGES.invitationInvalid);

/**
 * Use the invitation for the account `userId` inside the caller's writeTx: one conditional UPDATE, so of two
 * transactions with the same code only the first changes a row. Throws invitation_invalid otherwise, which rolls
 * the caller's transaction (and its new account) back.
 */
export async function consumeInvitation(tx: Db, code: string, userId: string): Promise<void> {
  if (!looksLikeCode(code)) throw invitationInvalid();
  const now = new Date();
  const i = schema.invitations;
  const used = await tx
    .update(i)
    .set({ usedAt: now, usedById: userId })
    .where(and(eq(i.codeHash, sha256(code)), isNull(i.usedAt), isNull(i.revokedAt), gt(i.expiresAt, now)))
    .returning({ id: i.id });
  if (used.length !== 1) throw invitationInvalid();
}

const looksLikeCode = (code: string) => code.startsWith(PREFIX) && code.length <= 100;

function toView(row: Row, usedBy: { id: string; email: string } | null): InvitationView {
  return {
    id: row.id,
    note: row.note,
    status: invitationStatus(row),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    usedAt: row.usedAt ? row.usedAt.toISOString() : null,
    usedBy,
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
