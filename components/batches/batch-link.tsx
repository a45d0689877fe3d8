import Link from 'next/link';

/** A link to the batch a `batch_task` call started (its result or its end message names it). */
export function BatchLink({ batchId }: { batchId: string }) {
  return (
    <Link href={`/batches/${encodeURIComponent(batchId)}`} className="mt-1 inline-block text-sm text-indigo-700 underline dark:text-indigo-300">
      Open the batch
    </Link>
  );
}
