import 'server-only';
import type { ApiWaiting } from '@/lib/types/team';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A stopped run's interrupt in the team feed's shape, which every answer control reads: a question, or any graph
 * interrupt (an approval among them). The inbox's chat and batch sources and a waiting batch item's view.
 */
export function waitingOf(interrupt: unknown): ApiWaiting {
  if (isRecord(interrupt) && interrupt.type === 'clarification' && typeof interrupt.question === 'string') {
    return { type: 'clarification', question: interrupt.question, questionId: typeof interrupt.questionId === 'string' ? interrupt.questionId : '' };
  }
  return { type: 'interrupt', payload: interrupt ?? null };
}
