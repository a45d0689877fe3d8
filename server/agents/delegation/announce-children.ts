import 'server-only';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { runEvents } from '../run-events';
import { findRun } from '../run-store';
import { delegationEvents } from './events';

const g = globalThis as unknown as { __ensembleChildChangesBridged?: true; __ensembleChildChangeLookups?: Set<Promise<void>> };
const lookups = () => (g.__ensembleChildChangeLookups ??= new Set());

/** Resolves once every announcement whose parent lookup has begun has been made (or failed and been logged). */
export async function childChangesAnnounced(): Promise<void> {
  await Promise.all([...lookups()]);
}

/**
 * A parent run's delegated children live in conversations of their own, so their progress is not an event of the
 * parent's. Steps panels follow the parent (its run stream, its conversation stream) and show the children under
 * its `task` calls: announce each child's start, finish and row end as a change of the parent run, once per
 * process, so those panels re-read the children instead of polling them. (A child accepted into the ledger is
 * announced by ledger.ts itself: it knows the parent's conversation.)
 */
export function bridgeChildChanges(): void {
  if (g.__ensembleChildChangesBridged) return;
  g.__ensembleChildChangesBridged = true;
  const announceParent = async (parentRunId: string | null | undefined) => {
    const parent = parentRunId ? await findRun(parentRunId) : undefined;
    if (parent) noteConversationChange(parent.conversationId, parent.id);
  };
  // Listeners run inside the emitter's caller and can't await it: a failed lookup is logged, never thrown into the
  // run's lifecycle.
  const safely = (f: () => Promise<void>) => {
    const announcing = f().catch((error: unknown) => console.error('[push] child change not announced:', error));
    lookups().add(announcing);
    void announcing.finally(() => lookups().delete(announcing));
  };
  // A run that finished in another process (relayed, `remote`): that process announced its parent's change.
  const onRun = (e: { runId: string; remote?: boolean }) => {
    if (!e.remote) safely(async () => announceParent((await findRun(e.runId))?.parentRunId));
  };
  runEvents().on('run:started', onRun);
  runEvents().on('run:finished', onRun);
  delegationEvents().on('finished', (e) => safely(() => announceParent(e.parentRunId)));
}
