'use client';

import { useQueryClient } from '@tanstack/react-query';
import type { ApiAgent } from '@/lib/types/agent';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
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
  // Deleted, or already gone (e.g. deleted in another tab): refresh the list so it disappears.
  const { confirm, ...dialog } = useConfirmMutation({
    action: deleteAgentAction,
    settle: async (id: string) => {
      queryClient.removeQueries({ queryKey: agentKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: agentKeys.lists });
    },
    onClose,
  });

  return (
    <ConfirmDialog
      open={agent !== null}
      title="Delete agent?"
      description={<>“{agent?.name}” will be deleted. Conversations with it stay readable, but you can’t send it new messages.</>}
      confirmLabel="Delete agent"
      pendingLabel="Deleting…"
      {...dialog}
      onConfirm={() => agent && confirm(agent.id)}
    />
  );
}
