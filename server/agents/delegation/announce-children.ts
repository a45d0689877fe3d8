import 'server-only';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { runEvents } from '../run-events';
import { findRun } from '../run-store';
import { delegationEvents } from './events';

/**
 * A parent run's delegated children live in conversations of their own, so their progress is not an event of the
 * parent's. Steps panels follow the parent (its run stream, its conversation stream) and show the children under
 * its `task` calls: announce each child's start, finish and row end as a change of the parent run, once per
 * process, so those panels re-read the children instead of polling them. (A child accepted into the ledger is
 * announced by ledger.ts itself: it knows the parent's conversation.)
 */
export function bridgeChildChanges(): void {
  const g = globalThis as unknown as { __ensembleChildChangesBridged?: true };
  if (g.__ensembleChildChangesBridged) return;
  g.__ensembleChildChangesBridged = true;
  const announceParent = (parentRunId: string | null | undefined) => {
    const parent = parentRunId ? findRun(parentRunId) : undefined;
    if (parent) noteConversationChange(parent.conversationId, parent.id);
  };
  // Listeners run inside the emitter's caller: a failed lookup is logged, never thrown into the run's lifecycle.
  const safely = (f: () => void) => {
    try {
      f();
    } catch (error) {
      console.error('[push] child change not announced:', error);
    }
  };
  const onRun = (e: { runId: string }) => safely(() => announceParent(findRun(e.runId)?.parentRunId));
  runEvents().on('run:started', onRun);
  runEvents().on('run:finished', onRun);
  delegationEvents().on('finished', (e) => safely(() => announceParent(e.parentRunId)));
}
