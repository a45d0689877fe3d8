'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { cancelBatchAction, retryCancelledBatchAction, retryFailedBatchAction } from '@/app/(app)/batches/actions';
import { buttonVariants } from '@/components/ui/button-variants';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Alert } from '@/components/ui/misc';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import { actionData } from '@/lib/action-result';
import type { BatchView } from '@/lib/types/batch';
import { batchActionState } from './batch-action-state';
import { batchExportUrl, batchKeys } from './queries';

/**
 * What a person can do with a batch (batch-action-state.ts): send its failed items back to the queue (a waiting item
 * is answered, not retried, and the page says so), re-run a cancelled batch's cancelled and failed items, cancel what has not finished, waiting items too (asked first, in
 * the kit's one confirm dialog), and download the items with their results as CSV or JSONL (the export
 * route, an attachment: plain links, so the file streams to disk).
 */
export function BatchActions({ batch, onChanged }: { batch: BatchView; onChanged: (batch: BatchView) => void }) {
  const queryClient = useQueryClient();
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const settle = async (next: BatchView | null) => {
    if (next) onChanged(next);
    await Promise.all([queryClient.invalidateQueries({ queryKey: batchKeys.items(batch.id) }), queryClient.invalidateQueries({ queryKey: batchKeys.list() })]);
  };

  const retry = useMutation({
    // The count retried is the one the button said when pressed.
    mutationFn: (_failed: number) => actionData(() => retryFailedBatchAction(batch.id)),
    onSuccess: async ({ batch: next }, failed) => {
      await settle(next);
      setAnnouncement(`${failed.toLocaleString('en-US')} failed ${failed === 1 ? 'item is' : 'items are'} queued again.`);
    },
  });
  const rerun = useMutation({
    mutationFn: (_count: number) => actionData(() => retryCancelledBatchAction(batch.id)),
    onSuccess: async ({ batch: next }, count) => {
      await settle(next);
      setAnnouncement(`${count.toLocaleString('en-US')} ${count === 1 ? 'item is' : 'items are'} queued again; the batch runs.`);
    },
  });
  const { confirm, ...cancelDialog } = useConfirmMutation({
    action: cancelBatchAction,
    settle: () => settle(null),
    onClose: () => setConfirmOpen(false),
    onDone: (data) => {
      if (data) onChanged(data.batch);
      setAnnouncement('Batch cancelled.');
    },
  });

  const { canCancel, canRetry, retryNote, cancelDescription, rerun: rerunCount, rerunLabel } = batchActionState(batch);
  const linkClass = cn(buttonVariants({ variant: 'secondary', size: 'sm' }));

  return (
    <div className="space-y-2">
      <div role="group" aria-label="Batch actions" className="flex flex-wrap items-center gap-2">
        {canRetry ? (
          <Button size="sm" onClick={() => retry.mutate(batch.counts.failed)} pending={retry.isPending}>
            {retry.isPending ? 'Queuing…' : `Retry ${batch.counts.failed.toLocaleString('en-US')} failed`}
          </Button>
        ) : null}
        {rerunLabel ? (
          <Button size="sm" onClick={() => rerun.mutate(rerunCount)} pending={rerun.isPending}>
            {rerun.isPending ? 'Queuing…' : rerunLabel}
          </Button>
        ) : null}
        {canCancel ? (
          <Button size="sm" variant="danger" onClick={() => setConfirmOpen(true)}>
            Cancel batch
          </Button>
        ) : null}
        <a href={batchExportUrl(batch.id, 'csv')} download className={linkClass}>
          Download CSV
        </a>
        <a href={batchExportUrl(batch.id, 'jsonl')} download className={linkClass}>
          Download JSONL
        </a>
      </div>
      {retryNote ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{retryNote}</p> : null}
      {retry.isError ? <Alert>Failed items not retried: {retry.error.message}</Alert> : null}
      {rerun.isError ? <Alert>Items not re-run: {rerun.error.message}</Alert> : null}
      <p role="status" aria-live="polite" className="sr-only">
        {announcement}
      </p>
      <ConfirmDialog
        open={confirmOpen}
        title="Cancel this batch?"
        description={cancelDescription}
        confirmLabel="Cancel batch"
        cancelLabel="Keep running"
        pendingLabel="Cancelling…"
        {...cancelDialog}
        onConfirm={() => confirm(batch.id)}
      />
    </div>
  );
}
