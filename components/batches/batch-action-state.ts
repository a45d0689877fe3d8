import type { BatchView } from '@/lib/types/batch';

const items = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'item' : 'items'}`;

/**
 * Which of a batch's actions apply, and what the person is told about them. Unfinished items are the queued, running
 * and waiting ones (cancel ends all three). A cancelled batch offers to re-run its cancelled and failed items. Retry is for failed items only: a waiting item is answered, not retried
 * (its run stopped for the person and resumes with their answer), so beside the Retry button the waiting ones are
 * said to stay as they are.
 */
export function batchActionState(batch: Pick<BatchView, 'status' | 'counts'>) {
  const { queued, running, waiting, failed, cancelled } = batch.counts;
  const unfinished = queued + running + waiting;
  const canRetry = failed > 0 && (batch.status === 'running' || batch.status === 'completed');
  // A cancelled batch re-runs what the cancel stopped (and what had failed before it): the items left undone.
  const rerun = batch.status === 'cancelled' ? cancelled + failed : 0;
  return {
    unfinished,
    canCancel: batch.status === 'running' && unfinished > 0,
    canRetry,
    rerun,
    rerunLabel: rerun ? `Re-run ${items(rerun)}` : null,
    retryNote:
      canRetry && waiting > 0
        ? `Retry queues the ${items(failed)} that failed; the ${items(waiting)} waiting for your answer ${waiting === 1 ? 'stays' : 'stay'} as ${waiting === 1 ? 'it is' : 'they are'}: answer ${waiting === 1 ? 'it' : 'them'} to go on.`
        : null,
    cancelDescription: `${unfinished.toLocaleString('en-US')} unfinished ${unfinished === 1 ? 'item ends' : 'items end'} now${waiting ? ` (${waiting.toLocaleString('en-US')} waiting for your answer)` : ''}, and running ones are stopped. Finished items and their results stay.`,
  };
}
