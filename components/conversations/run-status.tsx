'use client';

import { useState } from 'react';
import { Alert, Badge } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { sendErrorMessage } from './errors';
import type { RunView } from './run-state';
import { stopReasonLabel } from '@/lib/stop-reason-label';

/**
 * The latest run's state under the history: a live "Running…" status with Cancel, a failed run's error, or
 * "Cancelled". Approval and clarification interrupts have their own components.
 */
export function RunStatus({ view, onCancel }: { view: RunView; onCancel: () => Promise<void> }) {
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);

  async function cancel() {
    setCancelling(true);
    setCancelError(null);
    try {
      await onCancel();
    } catch (err) {
      setCancelError(sendErrorMessage(err));
    } finally {
      setCancelling(false);
    }
  }

  return (
    <div className="space-y-2">
      {/* Always mounted so screen readers announce changes to it. */}
      <div role="status" aria-live="polite" className="text-sm empty:hidden">
        {view.kind === 'active' ? (
          <span className="inline-flex items-center gap-2 text-zinc-700 dark:text-zinc-300">
            <span aria-hidden className="size-4 rounded-full border-2 border-indigo-500 border-t-transparent motion-safe:animate-spin" />
            {cancelling ? 'Cancelling…' : view.label}
          </span>
        ) : view.kind === 'cancelled' ? (
          <>
            <Badge tone="neutral">Cancelled</Badge>
            {view.tool ? (
              <span className="ml-2 break-words text-zinc-700 dark:text-zinc-300">{`The approval of ${view.tool} was cancelled with its ${view.withBatch ? 'batch' : 'team request'}: nothing waits for your answer.`}</span>
            ) : null}
          </>
        ) : view.kind === 'done' && view.stopReason ? (
          <Badge tone="warning">{stopReasonLabel('completed', view.stopReason)}</Badge>
        ) : view.kind === 'waiting' ? (
          <span className="text-zinc-700 dark:text-zinc-300">The agent is waiting for your reply.</span>
        ) : null}
      </div>
      {view.kind === 'active' ? (
        <Button variant="secondary" size="sm" onClick={() => void cancel()} disabled={cancelling}>
          Cancel
        </Button>
      ) : null}
      {cancelError ? <Alert>{`Could not cancel: ${cancelError}`}</Alert> : null}
      {view.kind === 'error' ? (
        <Alert>
          <span className="font-medium">{view.stopReason ? `${stopReasonLabel('failed', view.stopReason)}.` : 'The run failed.'}</span>{' '}
          <span className="whitespace-pre-wrap">{view.message}</span>
        </Alert>
      ) : null}
    </div>
  );
}
