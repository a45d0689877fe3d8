import Link from 'next/link';

/** How much of a batch's id names it to a screen reader: enough to tell a page's batches apart, short to hear. */
const SHORT_ID = 8;

/** The start of a batch's id, as a link's accessible name carries it (here and in the Inbox's cards). */
export const shortBatchId = (batchId: string) => batchId.slice(0, SHORT_ID);

/**
 * A link to the batch a `batch_task` call started (its result or its end message names it). A chat may start several
 * batches, so each link's accessible name carries the start of its batch's id (the start of the batch page's address
 * too); the visible text stays short.
 */
export function BatchLink({ batchId }: { batchId: string }) {
  return (
    <Link href={`/batches/${encodeURIComponent(batchId)}`} className="mt-1 inline-block text-sm text-indigo-700 underline dark:text-indigo-300">
      Open the batch<span className="sr-only">{` ${shortBatchId(batchId)}`}</span>
    </Link>
  );
}
