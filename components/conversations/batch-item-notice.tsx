import Link from 'next/link';
import { shortBatchId } from '@/components/batches/batch-link';
import { textLink } from '@/components/ui/button-variants';
import { cn } from '@/components/ui/cn';

/**
 * In place of the composer in a batch item's hidden conversation (ConversationDetail.batch): it is read here, never
 * continued, and the item's question or approval is answered on its batch's page or in the Inbox, so the answer is
 * recorded on the item (the server refuses a message or an answer here). The link's accessible name carries the start
 * of the batch's id, as BatchLink's does.
 */
export function BatchItemNotice({ batchId, waiting }: { batchId: string; waiting: boolean }) {
  return (
    <section
      aria-labelledby="batch-item-heading"
      className={cn(
        'rounded-lg border p-3 text-sm',
        waiting ? 'border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40' : 'border-zinc-200 dark:border-zinc-800',
      )}
    >
      <h2 id="batch-item-heading" className="font-semibold text-zinc-900 dark:text-zinc-50">
        {waiting ? 'A batch item waits for you' : 'A batch item'}
      </h2>
      <p className="mt-1 text-zinc-700 dark:text-zinc-300">
        {waiting
          ? 'This conversation runs an item of a batch. Answer it on the batch’s page or in the Inbox, so the answer is recorded on the item.'
          : 'This conversation runs an item of a batch: it can be read here, not continued. Retry the item from its batch.'}
      </p>
      <Link href={`/batches/${encodeURIComponent(batchId)}`} className={cn(textLink, 'mt-2 inline-block')}>
        {waiting ? 'Answer on the batch’s page' : 'Open the batch'}
        <span className="sr-only">{` ${shortBatchId(batchId)}`}</span>
      </Link>
    </section>
  );
}
