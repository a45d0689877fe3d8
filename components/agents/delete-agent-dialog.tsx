'use client';

import { Dialog, DialogBackdrop, DialogPanel, DialogTitle, Description } from '@headlessui/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiAgent } from '@/lib/types/agent';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/misc';
import { useAgentActions } from './agent-actions';
import { agentKeys } from './agents-api';

type Props = {
  /** The agent to delete; null keeps the dialog closed. */
  agent: ApiAgent | null;
  onClose: () => void;
};

/** Asks before deleting an agent. Focus stays inside until it closes; Escape cancels. */
export function DeleteAgentDialog({ agent, onClose }: Props) {
  const queryClient = useQueryClient();
  const actions = useAgentActions();
  const remove = useMutation({
    mutationFn: (id: string) => actionData(() => actions.remove(id)),
    onSuccess: async (_data, id) => {
      queryClient.removeQueries({ queryKey: agentKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.lists });
      onClose();
    },
    onError: async (err) => {
      // Already gone (e.g. deleted in another tab): refresh the list so it disappears.
      if (err instanceof ApiError && err.code === 'not_found') await queryClient.invalidateQueries({ queryKey: agentKeys.lists });
    },
  });

  const close = () => {
    if (remove.isPending) return;
    remove.reset();
    onClose();
  };

  return (
    // The dialog element itself covers the viewport (not just its fixed children), so it has a box of its own.
    <Dialog open={agent !== null} onClose={close} className="fixed inset-0 z-50 flex items-center justify-center p-4">
      <DialogBackdrop className="fixed inset-0 bg-black/40 dark:bg-black/60" />
      <DialogPanel className="relative w-full max-w-md rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
        <DialogTitle className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Delete agent?</DialogTitle>
        <Description className="mt-2 text-sm wrap-anywhere text-zinc-600 dark:text-zinc-300">
          “{agent?.name}” will be deleted. Conversations with it stay readable, but you can’t send it new messages.
        </Description>
        {remove.isError ? (
          <div className="mt-3">
            <Alert>{remove.error.message}</Alert>
          </div>
        ) : null}
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={close} disabled={remove.isPending} autoFocus>
            Cancel
          </Button>
          <Button variant="danger" onClick={() => agent && remove.mutate(agent.id)} disabled={remove.isPending || !agent}>
            {remove.isPending ? 'Deleting…' : 'Delete agent'}
          </Button>
        </div>
      </DialogPanel>
    </Dialog>
  );
}
