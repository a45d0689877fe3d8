import 'server-only';
import type { BaseMessage } from '@langchain/core/messages';
import { compactionsOf } from './store';
import { summaryMessage } from './summary-message';

/**
 * The thread as a person reads it: every message, and each compaction's summary right after the last message it
 * summarized (provenance `compaction`), so the conversation shows where the model's view was shortened. The thread
 * itself never holds the summaries: team result attribution and recovery read it unchanged.
 */
export async function withCompactionSummaries(threadId: string, messages: readonly BaseMessage[]): Promise<BaseMessage[]> {
  const records = await compactionsOf(threadId);
  if (!records.length) return messages.slice();
  const after = new Map<string, BaseMessage[]>();
  for (const record of records) {
    const list = after.get(record.throughMessageId);
    if (list) list.push(summaryMessage(record));
    else after.set(record.throughMessageId, [summaryMessage(record)]);
  }
  const out: BaseMessage[] = [];
  for (const m of messages) {
    out.push(m);
    const summaries = m.id ? after.get(m.id) : undefined;
    if (summaries) out.push(...summaries);
  }
  return out;
}
