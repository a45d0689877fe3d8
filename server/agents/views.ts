import 'server-only';
import { nanosToUsd } from '@/lib/money';
import type { Conversation as ConversationRow, Run as RunRow } from '@/server/db/schema';
import type { Conversation, ConversationDetail, Run } from '@/lib/types/conversation';
import type { ConversationState } from './runs';
import type { StoredAssembly } from './assembly/recorded-setup';

export type { StoredAssembly };

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

/** GET /api/v1/conversations/:id's answer (the route and the page's first render). */
export function conversationDetailView(state: ConversationState): ConversationDetail {
  return {
    conversation: conversationView(state.conversation),
    messages: state.messages,
    run: state.run ? runView(state.run) : null,
    teamRequest: state.teamRequest,
    team: state.team,
    batch: state.batch,
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
    modelCalls: row.modelCalls,
    unreportedCalls: row.unreportedCalls,
    cost: row.costNanos === null ? null : nanosToUsd(row.costNanos),
    fingerprint: row.fingerprint,
    assembly: (row.assembly as StoredAssembly | null)?.descriptor ?? null,
    assemblyChanges: (row.assembly as StoredAssembly | null)?.changes ?? null,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
  };
}
