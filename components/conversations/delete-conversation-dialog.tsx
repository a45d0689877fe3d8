'use client';

import Link from 'next/link';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
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

/**
 * The Delete control of one conversation: a button that opens the dialog. `afterDelete` says where to go once it
 * is gone (the chat page goes back to the list; the list stays where it is and drops the row).
 */
export function DeleteConversationButton({
  conversation,
  label = 'Delete',
  afterDelete,
}: {
  conversation: { id: string; agentName: string };
  label?: string;
  afterDelete?: () => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="ghost" size="sm" onClick={() => setOpen(true)} aria-haspopup="dialog" aria-label={`Delete conversation with ${conversation.agentName}`}>
        {label}
      </Button>
      <DeleteConversationDialog conversation={open ? conversation : null} onClose={() => setOpen(false)} onDeleted={afterDelete} />
    </>
  );
}

/**
 * In place of Delete for a team member's conversation, which can be deleted only once its team is (the server refuses
 * it before; ADR 050): the team, linked, and what to do instead.
 */
export function TeamMemberNote({ team }: { team: { id: string; name: string } }) {
  return (
    <p className="max-w-56 text-xs break-words text-zinc-600 dark:text-zinc-400">
      Part of the team{' '}
      <Link href={`/teams/${encodeURIComponent(team.id)}`} className="text-indigo-700 underline dark:text-indigo-300">
        {team.name}
      </Link>
      ; to delete this conversation, delete the team first.
    </p>
  );
}
