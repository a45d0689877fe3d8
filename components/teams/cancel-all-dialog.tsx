'use client';

import { useMutation } from '@tanstack/react-query';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiTeam } from '@/lib/types/team';
import { cancelAllJobsAction } from '@/app/(app)/teams/actions';

type Props = {
  team: Pick<ApiTeam, 'id' | 'name' | 'pendingJobs'>;
  open: boolean;
  onClose: () => void;
  /** After the cancel: re-read the feed so every card shows its new status at once. */
  onCancelled: (count: number) => void;
};

/** "Cancel all" asks first: every unfinished request of the team stops, each as if cancelled one by one. */
export function CancelAllDialog({ team, open, onClose, onCancelled }: Props) {
  const cancelAll = useMutation({
    mutationFn: () => actionData(() => cancelAllJobsAction(team.id)),
    onSuccess: (result) => {
      onClose();
      onCancelled(result.jobs.length);
    },
  });
  const n = team.pendingJobs;
  return (
    <ConfirmDialog
      open={open}
      title={<>Cancel all unfinished requests of “{team.name}”?</>}
      description={
        <>
          {n === 1 ? '1 unfinished request' : `${n} unfinished requests`} will be cancelled: queued ones and questions
          waiting for you at once, running ones as soon as their member stops. Finished results stay. You can retry any
          of them later.
        </>
      }
      confirmLabel="Cancel all"
      cancelLabel="Keep them"
      pendingLabel="Cancelling…"
      pending={cancelAll.isPending}
      error={cancelAll.isError ? (cancelAll.error instanceof ApiError ? cancelAll.error.message : 'Cancel all failed; try again.') : null}
      onCancel={() => {
        cancelAll.reset();
        onClose();
      }}
      onConfirm={() => cancelAll.mutate()}
    />
  );
}
