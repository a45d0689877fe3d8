import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db'
import { tieBreak } from '@/server/db/dialect';
import type { Conversation } from '@/server/db/schema';
import { notFound } from '@/server/http/errors';
import { assertConversationQuota } from './quotas';

/**
 * A new conversation (thread) with one of the owner's agents; another owner's agent is a 404, and past
 * LIMITS.quotas.conversationsPerAccount a 409 `conversation_limit` (checked in the inserting transaction).
 */
export async function createConversation(ownerId: string, agentId: string): Promise<Conversation> {
  return writeTx(async (tx) => {
    const [agent] = await tx
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(and(eq(schema.agents.id, agentId), eq(schema.agents.ownerId, ownerId)));
    if (!agent) throw notFound('Agent');
    await assertConversationQuota(tx, ownerId);
    const now = new Date();
    const [conversation] = await tx
      .insert(schema.conversations)
      .values({ id: crypto.randomUUID(), ownerId, agentId: agent.id, agentName: agent.name, title: '', createdAt: now, updatedAt: now })
      .returning();
    return conversation!;
  });
}

/** The owner's conversations, most recently active first (a delegated child's hidden conversation is not listed). */
export async function listConversations(ownerId: string): Promise<Conversation[]> {
  return getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.ownerId, ownerId), isNull(schema.conversations.parentRunId)))
    .orderBy(desc(schema.conversations.updatedAt), desc(tieBreak(schema.conversations.id)));
}

/** The owner's conversation, or a 404 exactly like a missing id. */
export async function getConversation(ownerId: string, conversationId: string): Promise<Conversation> {
  const row = await findConversation(conversationId);
  if (!row || row.ownerId !== ownerId) throw notFound('Conversation');
  return row;
}

/** Internal lookup without an owner check, for server code that already checked ownership. */
export async function findConversation(conversationId: string): Promise<Conversation | undefined> {
  return (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)))[0];
}
