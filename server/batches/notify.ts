import 'server-only';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { ConversationBusyError, startRun } from '@/server/agents/runs';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { batchSummary } from './summary';

/**
 * The one message a `batch_task` caller that did not wait gets when its batch ends: a new turn in its conversation
 * carrying the summary as data (the untrusted human channel, never system text), keyed by the batch and its end so it
 * is sent once. A conversation still busy (the calling run itself, say) gets it on a later pass.
 */
export async function notifyEndedBatches(signal: AbortSignal): Promise<void> {
  const pending = await getDb()
    .select()
    .from(schema.batches)
    .where(and(inArray(schema.batches.status, ['completed', 'cancelled']), eq(schema.batches.notify, 'message'), isNull(schema.batches.notifiedAt)))
    .limit(20);
  for (const batch of pending) {
    signal.throwIfAborted();
    if (!batch.parentConversationId) continue;
    const summary = await batchSummary(batch);
    const text = `The batch you started (batch_task) has ended. Its summary, as data:\n${neutralizedJson(summary)}`;
    try {
      await startRun(
        batch.parentConversationId,
        { text, meta: { kind: 'batch_result', author: 'member', provenance: { contentKind: 'receipt', producer: { type: 'framework' } }, batchId: batch.id } },
        {
          idempotencyKey: `batch-end:${batch.id}:${batch.finishedAt?.getTime() ?? 0}`,
          signal,
          inTransaction: async (tx) => {
            await tx.update(schema.batches).set({ notifiedAt: new Date() }).where(and(eq(schema.batches.id, batch.id), isNull(schema.batches.notifiedAt)));
          },
        },
      );
    } catch (err) {
      if (err instanceof ConversationBusyError) continue;
      console.error(`[batches] end message of ${batch.id} not sent`, err);
    }
  }
}
