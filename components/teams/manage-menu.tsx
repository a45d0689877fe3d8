'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Dialog, DialogPanel, DialogTitle, Description, Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react';
import { Button } from '@/components/ui/button';
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

      <Dialog open={confirmOpen} onClose={() => !remove.isPending && setConfirmOpen(false)} className="relative z-50">
        <div className="fixed inset-0 bg-black/40" aria-hidden />
        <div className="fixed inset-0 flex items-center justify-center p-4">
          <DialogPanel className="w-full max-w-md space-y-4 rounded-lg bg-white p-5 shadow-xl dark:bg-zinc-900">
            <DialogTitle className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Delete “{team.name}”?</DialogTitle>
            <Description className="text-sm text-zinc-600 dark:text-zinc-400">
              The team, its activity and its shared record are removed. A team with unfinished requests can’t be deleted:
              cancel them or let them finish first.
            </Description>
            {remove.isError ? <Alert>{errorText(remove.error, 'Delete failed; try again.')}</Alert> : null}
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="secondary" onClick={() => setConfirmOpen(false)} disabled={remove.isPending}>
                Keep team
              </Button>
              <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                {remove.isPending ? 'Deleting…' : 'Delete team'}
              </Button>
            </div>
          </DialogPanel>
        </div>
      </Dialog>
    </>
  );
}
