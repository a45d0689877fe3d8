'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiTeam } from '@/lib/types/team';
import { teamKeys } from './queries';
import { useTeamActions } from './team-actions';

const itemClass =
  'block w-full px-3 py-2 text-left text-sm text-zinc-800 data-focus:bg-zinc-100 dark:text-zinc-200 dark:data-focus:bg-zinc-800';

type Props = {
  team: ApiTeam;
  onRefresh: () => void;
  onReconnected: () => void;
};

const errorText = (e: unknown, fallback: string) => (e instanceof ApiError ? e.message : fallback);

/** Refresh now, Reconnect (after a restart or an interrupted creation) and Delete finished team. */
export function ManageMenu({ team, onRefresh, onReconnected }: Props) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const actions = useTeamActions();
  const [confirmOpen, setConfirmOpen] = useState(false);

  const reconnect = useMutation({
    mutationFn: () => actionData(() => actions.reconnect(team.id)),
    onSuccess: onReconnected,
  });
  const remove = useMutation({
    mutationFn: () => actionData(() => actions.remove(team.id)),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: teamKeys.detail(team.id) });
      void queryClient.invalidateQueries({ queryKey: teamKeys.list() });
      router.push('/teams');
    },
  });
  const canReconnect = team.status === 'creating';

  return (
    <>
      <Menu>
        <MenuButton as={Button} variant="secondary" size="sm">
          Manage <span aria-hidden>▾</span>
        </MenuButton>
        <MenuItems
          anchor="bottom end"
          className="z-30 mt-1 w-56 rounded-md border border-zinc-200 bg-white py-1 shadow-lg focus:outline-none dark:border-zinc-700 dark:bg-zinc-900"
        >
          <MenuItem>
            <button type="button" className={itemClass} onClick={onRefresh}>
              Refresh now
            </button>
          </MenuItem>
          {canReconnect ? (
            <MenuItem>
              <button type="button" className={itemClass} onClick={() => reconnect.mutate()}>
                Reconnect
              </button>
            </MenuItem>
          ) : null}
          <MenuItem>
            <button
              type="button"
              className={`${itemClass} text-red-700 dark:text-red-300`}
              onClick={() => {
                remove.reset();
                setConfirmOpen(true);
              }}
            >
              Delete finished team
            </button>
          </MenuItem>
        </MenuItems>
      </Menu>

      {reconnect.isPending ? <span className="sr-only" role="status">Reconnecting…</span> : null}
      {reconnect.isError ? (
        <div className="basis-full">
          <Alert action={<Button size="sm" variant="ghost" onClick={() => reconnect.reset()}>Dismiss</Button>}>
            Reconnect failed: {errorText(reconnect.error, 'try again.')}
          </Alert>
        </div>
      ) : null}

      <ConfirmDialog
        open={confirmOpen}
        title={<>Delete “{team.name}”?</>}
        description={
          <>
            The team, its activity and its shared record are removed. A team with unfinished requests can’t be deleted:
            cancel them or let them finish first.
          </>
        }
        confirmLabel="Delete team"
        cancelLabel="Keep team"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        error={remove.isError ? errorText(remove.error, 'Delete failed; try again.') : null}
        onCancel={() => setConfirmOpen(false)}
        onConfirm={() => remove.mutate()}
      />
    </>
  );
}
