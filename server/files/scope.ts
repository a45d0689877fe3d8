import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { FileScope } from '@/lib/types/file';
import { getDb, schema } from '@/server/db';
import { notFound } from '@/server/http/errors';

/** A scope as checked: whose it is, and the key its files' unique names are kept under. */
export type ScopeRef = { ownerId: string; teamId: string | null; conversationId: string | null; key: string };

export const scopeKey = (scope: FileScope) => `${scope.kind}:${scope.id}`;

/** The scope if it is the owner's: another owner's team or chat, or a missing one, is the same 404. */
export async function resolveScope(ownerId: string, scope: FileScope): Promise<ScopeRef> {
  const db = getDb();
  if (scope.kind === 'team') {
    const [team] = await db.select({ id: schema.teams.id }).from(schema.teams).where(and(eq(schema.teams.id, scope.id), eq(schema.teams.ownerId, ownerId)));
    if (!team) throw notFound('Team');
    return { ownerId, teamId: scope.id, conversationId: null, key: scopeKey(scope) };
  }
  const [chat] = await db
    .select({ id: schema.conversations.id })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.id, scope.id), eq(schema.conversations.ownerId, ownerId)));
  if (!chat) throw notFound('Conversation');
  return { ownerId, teamId: null, conversationId: scope.id, key: scopeKey(scope) };
}
