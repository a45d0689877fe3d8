'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import type { ApiAgent } from '@/lib/types/agent';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { deleteAgentAction } from '@/app/(app)/agents/actions';
import { agentKeys } from './queries';

type Props = {
  /** The agent to delete; null keeps the dialog closed. */
  agent: ApiAgent | null;
  onClose: () => void;
};

/** Asks before deleting an agent (the kit's ConfirmDialog: focus stays inside until it closes; Escape cancels). */
export function DeleteAgentDialog({ agent, onClose }: Props) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => actionData(() => deleteAgentAction(id)),
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
    <ConfirmDialog
      open={agent !== null}
      title="Delete agent?"
      description={<>“{agent?.name}” will be deleted. Conversations with it stay readable, but you can’t send it new messages.</>}
      confirmLabel="Delete agent"
      pendingLabel="Deleting…"
      pending={remove.isPending}
      error={remove.isError ? remove.error.message : null}
      onCancel={close}
      onConfirm={() => agent && remove.mutate(agent.id)}
    />
  );
}
