'use client';

import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
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
  const { confirm, ...dialog } = useConfirmMutation({
    action: cancelAllJobsAction,
    onClose,
    onDone: (result) => onCancelled(result?.jobs.length ?? 0),
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
      {...dialog}
      onConfirm={() => confirm(team.id)}
    />
  );
}
