import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import { and, eq } from 'drizzle-orm';
import type { ApiFileAuthor } from '@/lib/types/file';
import { runContext } from '@/server/agents/tools/registry';
import { getDb, schema } from '@/server/db';
import { scopeKey, type ScopeRef } from '../scope';

/** A refusal the model reads as the tool's result (nothing was written). */
export class FileToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileToolError';
  }
}

export type FileCaller = { scope: ScopeRef; author: ApiFileAuthor; runId: string };

/**
 * Whose files a `files` tool works on, from the run's server-owned context only (never the model's arguments): a
 * team member's run works in its team's workspace and writes as that member; any other run in its own chat's files,
 * writing as the chat's agent.
 */
export async function fileCaller(config: RunnableConfig | undefined): Promise<FileCaller> {
  let ctx;
  try {
    ctx = runContext(config);
  } catch {
    throw new FileToolError('The files tools only run inside a run');
  }
  const db = getDb();
  const [member] = await db
    .select({ member: schema.teamMembers, teamId: schema.teams.id })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teamMembers.conversationId, ctx.conversationId), eq(schema.teams.ownerId, ctx.ownerId)))
    .limit(1);
  if (member) {
    return {
      scope: { ownerId: ctx.ownerId, teamId: member.teamId, conversationId: null, key: scopeKey({ kind: 'team', id: member.teamId }) },
      author: { kind: 'member', memberId: member.member.id, name: member.member.name },
      runId: ctx.runId,
    };
  }
  const [chat] = await db
    .select({ id: schema.conversations.id, agentId: schema.conversations.agentId, agentName: schema.conversations.agentName })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.id, ctx.conversationId), eq(schema.conversations.ownerId, ctx.ownerId)));
  if (!chat) throw new FileToolError('This run has no files');
  return {
    scope: { ownerId: ctx.ownerId, teamId: null, conversationId: chat.id, key: scopeKey({ kind: 'conversation', id: chat.id }) },
    author: { kind: 'member', memberId: chat.agentId ?? ctx.agentId ?? 'agent', name: chat.agentName },
    runId: ctx.runId,
  };
}
