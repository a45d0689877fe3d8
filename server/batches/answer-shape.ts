import 'server-only';
import type { BatchItem } from '@/server/db/schema';

/**
 * The person's answer held on a waiting batch item (batch_items.answer) until the scheduler admits it again: text for
 * a question, JSON for an approval or another interrupt, like a team job's pending answer. `answerKey` makes a
 * repeated answer a no-op; `resumed` marks it spent once the run that carries it was recorded, so a later retry of the
 * item starts afresh instead of answering again.
 */
export type ItemAnswer =
  | { type: 'clarification'; text: string; questionId: string; answerKey: string; resumed?: boolean }
  | { type: 'interrupt'; response: unknown; answerKey: string; resumed?: boolean };

/** The answer the item's next launch must resume with, if any. */
export function pendingAnswer(item: Pick<BatchItem, 'answer'>): ItemAnswer | null {
  const answer = item.answer as ItemAnswer | null;
  return answer && !answer.resumed ? answer : null;
}
