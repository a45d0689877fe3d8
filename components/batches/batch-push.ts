import type { BatchView } from '@/lib/types/batch';

/** The batch a message carries (`{ batch: BatchView }`), or null for one this view can't read (then it re-reads). */
export function pushedBatch(data: string, batchId: string): BatchView | null {
  try {
    const body = JSON.parse(data) as { batch?: Partial<BatchView> } | null;
    const batch = body?.batch;
    return batch && batch.id === batchId && typeof batch.status === 'string' && batch.counts && typeof batch.counts === 'object' ? (batch as BatchView) : null;
  } catch {
    return null;
  }
}
