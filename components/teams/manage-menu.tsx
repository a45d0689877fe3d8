'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Menu } from '@/components/ui/menu';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiTeam } from '@/lib/types/team';
import { CancelAllDialog } from './cancel-all-dialog';
import { downloadTeamExport } from './export-download';
import { CloneTeamDialog } from './team-dialogs-lazy';
import { teamKeys } from './queries';
import { deleteTeamAction, reconnectTeamAction } from '@/app/(app)/teams/actions';

type Props = {
  team: ApiTeam;
  onRefresh: () => void;
  onReconnected: () => void;
};

const errorText = (e: unknown, fallback: string) => (e instanceof ApiError ? e.message : fallback);

/**
 * Refresh now, Reconnect (after a restart or an interrupted creation), Export (Markdown or JSON), Clone (a new team
 * with the same members and goal, at any time; the request limit's notice offers it too), Cancel all unfinished
 * requests (asks first) and Delete team (asks first; the server refuses while requests are unfinished).
 */
export function ManageMenu({ team, onRefresh, onReconnected }: Props) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [cancelAllOpen, setCancelAllOpen] = useState(false);
  const [cloneOpen, setCloneOpen] = useState(false);

  const reconnect = useMutation({
    mutationFn: () => actionData(() => reconnectTeamAction(team.id)),
    onSuccess: onReconnected,
  });
  const { confirm, ...removeDialog } = useConfirmMutation({
    action: deleteTeamAction,
    onClose: () => setConfirmOpen(false),
    onDone: () => {
      queryClient.removeQueries({ queryKey: teamKeys.detail(team.id) });
      void queryClient.invalidateQueries({ queryKey: teamKeys.list() });
      router.push('/teams');
    },
  });
  const canReconnect = team.status === 'creating';

  return (
    <>
      <Menu
        label={
          <>
            Manage <span aria-hidden>▾</span>
          </>
        }
        items={[
          { label: 'Refresh now', onSelect: onRefresh },
          ...(canReconnect ? [{ label: 'Reconnect', onSelect: () => reconnect.mutate() }] : []),
          { label: 'Export as Markdown', onSelect: () => downloadTeamExport(team.id, 'md') },
          { label: 'Export as JSON', onSelect: () => downloadTeamExport(team.id, 'json') },
          { label: 'Export as ZIP, with files', onSelect: () => downloadTeamExport(team.id, 'zip') },
          { label: 'Clone team…', onSelect: () => setCloneOpen(true) },
          ...(team.pendingJobs > 0 ? [{ label: 'Cancel all unfinished requests…', danger: true, onSelect: () => setCancelAllOpen(true) }] : []),
          {
            label: 'Delete team…',
            danger: true,
            onSelect: () => setConfirmOpen(true),
          },
        ]}
      />

      {reconnect.isPending ? <span className="sr-only" role="status">Reconnecting…</span> : null}
      {reconnect.isError ? (
        <div className="basis-full">
          <Alert action={<Button size="sm" variant="ghost" onClick={() => reconnect.reset()}>Dismiss</Button>}>
            Reconnect failed: {errorText(reconnect.error, 'try again.')}
          </Alert>
        </div>
      ) : null}

      {cloneOpen ? <CloneTeamDialog team={team} open onClose={() => setCloneOpen(false)} /> : null}

      <CancelAllDialog team={team} open={cancelAllOpen} onClose={() => setCancelAllOpen(false)} onCancelled={onRefresh} />

      <ConfirmDialog
        open={confirmOpen}
        title={<>Delete “{team.name}”?</>}
        description={
          <>
            The team, its activity, its shared record and the files of its workspace are removed (Manage → Export as
            ZIP keeps a copy of them all). A team with unfinished requests can’t be deleted: cancel them or let them
            finish first.
          </>
        }
        confirmLabel="Delete team"
        cancelLabel="Keep team"
        pendingLabel="Deleting…"
        {...removeDialog}
        onConfirm={() => confirm(team.id)}
      />
    </>
  );
}
