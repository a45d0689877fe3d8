import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db';
import type { Conversation } from '@/server/db/schema';
import { notFound } from '@/server/http/errors';
import { assertConversationQuota } from './quotas';

/**
 * A new conversation (thread) with one of the owner's agents; another owner's agent is a 404, and past
 * LIMITS.quotas.conversationsPerAccount a 409 `conversation_limit` (checked in the inserting transaction).
 */
export function createConversation(ownerId: string, agentId: string): Conversation {
  return writeTx((tx) => {
    const agent = tx
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(and(eq(schema.agents.id, agentId), eq(schema.agents.ownerId, ownerId)))
      .get();
    if (!agent) throw notFound('Agent');
    assertConversationQuota(tx, ownerId);
    const now = new Date();
    return tx
      .insert(schema.conversations)
      .values({ id: crypto.randomUUID(), ownerId, agentId: agent.id, agentName: agent.name, title: '', createdAt: now, updatedAt: now })
      .returning()
      .get();
  });
}

/** The owner's conversations, most recently active first (a delegated child's hidden conversation is not listed). */
export function listConversations(ownerId: string): Conversation[] {
  return getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.ownerId, ownerId), isNull(schema.conversations.parentRunId)))
    .orderBy(desc(schema.conversations.updatedAt), desc(sql`rowid`))
    .all();
}

/** The owner's conversation, or a 404 exactly like a missing id. */
export function getConversation(ownerId: string, conversationId: string): Conversation {
  const row = findConversation(conversationId);
  if (!row || row.ownerId !== ownerId) throw notFound('Conversation');
  return row;
}

/** Internal lookup without an owner check, for server code that already checked ownership. */
export function findConversation(conversationId: string): Conversation | undefined {
  return getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)).get();
}
