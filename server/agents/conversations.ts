import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
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

/*
 * A batch item's hidden conversation names its batch where a delegated child's names the run that delegated
 * (parent_run_id): what tells, on reading it, that a run cancelled with its interrupt kept was ended by its batch's
 * cancel (server/batches/waits.ts) rather than a team request's.
 */
const BATCH_PARENT = 'batch:';
/** The parent_run_id of a batch item's conversation (server/batches/items.ts). */
export const batchItemParent = (batchId: string) => `${BATCH_PARENT}${batchId}`;
/** The batch whose item this conversation runs, or null (a chat, a team member's, a delegated child's). */
export function batchOfConversation(conversation: Pick<Conversation, 'parentRunId'>): { id: string } | null {
  const parent = conversation.parentRunId;
  return parent?.startsWith(BATCH_PARENT) ? { id: parent.slice(BATCH_PARENT.length) } : null;
}

/**
 * The team a conversation is a member of, or null. A member's conversation belongs to its team: it can be deleted
 * only once the team is (conversation-delete.ts), so the chat offers no Delete for it and names the team instead.
 */
export async function memberTeamOf(conversationId: string): Promise<{ id: string; name: string } | null> {
  const [team] = await getDb()
    .select({ id: schema.teams.id, name: schema.teams.name })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(eq(schema.teamMembers.conversationId, conversationId))
    .limit(1);
  return team ?? null;
}

/** memberTeamOf for every conversation of the owner's teams' members at once (the conversations list). */
export async function memberTeams(ownerId: string): Promise<Map<string, { id: string; name: string }>> {
  const rows = await getDb()
    .select({ conversationId: schema.teamMembers.conversationId, id: schema.teams.id, name: schema.teams.name })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teams.ownerId, ownerId), isNotNull(schema.teamMembers.conversationId)));
  return new Map(rows.map((r) => [r.conversationId!, { id: r.id, name: r.name }]));
}
