import 'server-only';
import type { Conversation as ConversationRow, Run as RunRow } from '@/server/db/schema';
import type { Conversation, Run } from '@/lib/types/conversation';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A conversation row as the API returns it. */
export function conversationView(row: ConversationRow): Conversation {
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: row.agentName,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A run row as the API returns it: never the stored input or idempotency key. */
export function runView(row: RunRow): Run {
  return {
    id: row.id,
    conversationId: row.conversationId,
    kind: row.kind,
    status: row.status,
    model: row.model,
    error: row.error,
    stopReason: row.stopReason,
    interrupt: row.interrupt ?? null,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
  };
}
