'use client';

import { useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useConfirmMutation } from '@/components/ui/use-confirm-mutation';
import { deleteConversationAction } from '@/app/(app)/conversations/actions';
import { conversationKeys } from './queries';

type Props = {
  /** The conversation to delete (its id and the agent's name, for the question); null keeps the dialog closed. */
  conversation: { id: string; agentName: string } | null;
  onClose: () => void;
  /** After the delete (or when it was already gone): the list is refreshed first; the page navigates away. */
  onDeleted?: () => void;
};

/**
 * Asks before deleting a conversation (the kit's ConfirmDialog: Cancel has focus first, Escape cancels). A refusal
 * (a run still working, a team member's conversation) is said inside the dialog, which stays open.
 */
export function DeleteConversationDialog({ conversation, onClose, onDeleted }: Props) {
  const queryClient = useQueryClient();
  const { confirm, ...dialog } = useConfirmMutation({
    action: deleteConversationAction,
    settle: async (id: string) => {
      // Its cached reads would only answer 404 now: drop those nothing shows. The open chat page keeps its own until
      // it navigates away (removing a read that is on screen would fetch it again and flash "unavailable").
      queryClient.removeQueries({ queryKey: conversationKeys.one(id), type: 'inactive' });
      await queryClient.invalidateQueries({ queryKey: conversationKeys.list() });
    },
    // Already gone (deleted in another tab): the outcome the person asked for, so treat it as done.
    goneIsDone: true,
    onClose,
    onDone: () => onDeleted?.(),
  });

  return (
    <ConfirmDialog
      open={conversation !== null}
      title="Delete conversation?"
      description={
        <>
          The conversation with “{conversation?.agentName}” is deleted for good: its messages, runs and steps, and the
          conversations of the tasks it delegated. A conversation with a run still working can’t be deleted: stop
          the run first.
        </>
      }
      confirmLabel="Delete conversation"
      cancelLabel="Keep conversation"
      pendingLabel="Deleting…"
      {...dialog}
      onConfirm={() => conversation && confirm(conversation.id)}
    />
  );
}
