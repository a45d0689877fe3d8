/** A batch's and an item's status in words and the badge tone beside the words (never colour alone). */
import type { BatchItemStatus, BatchStatus } from '@/lib/types/batch';

type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

export const BATCH_STATUS: Record<BatchStatus, { label: string; tone: Tone }> = {
  running: { label: 'Running', tone: 'info' },
  cancelling: { label: 'Cancelling', tone: 'warning' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
  completed: { label: 'Finished', tone: 'success' },
};

export const ITEM_STATUS: Record<BatchItemStatus, { label: string; tone: Tone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  running: { label: 'Running', tone: 'info' },
  waiting: { label: 'Waiting for you', tone: 'warning' },
  done: { label: 'Done', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};
