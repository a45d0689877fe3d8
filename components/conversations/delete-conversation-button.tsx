'use client';

import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';

/**
 * The delete dialog, loaded when someone opens it (like the team's dialogs, team-dialogs-lazy.tsx): the chat's and the
 * list's first load do not ship it. Mounted only while open; the kit's Modal gives focus back when it unmounts.
 */
export const DeleteConversationDialogLazy = dynamic(() => import('./delete-conversation-dialog').then((m) => m.DeleteConversationDialog), {
  ssr: false,
});

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
      {open ? <DeleteConversationDialogLazy conversation={conversation} onClose={() => setOpen(false)} onDeleted={afterDelete} /> : null}
    </>
  );
}

/**
 * In place of Delete for a team member's conversation, which can be deleted only once its team is (the server refuses
 * it before; ADR 050): the team, linked, and what to do instead.
 */
export function TeamMemberNote({ team, className = 'max-w-56' }: { team: { id: string; name: string }; className?: string }) {
  return (
    <p className={cn('text-xs break-words text-zinc-600 dark:text-zinc-400', className)}>
      Part of the team{' '}
      <Link href={`/teams/${encodeURIComponent(team.id)}`} className="text-indigo-700 underline dark:text-indigo-300">
        {team.name}
      </Link>
      ; to delete this conversation, delete the team first.
    </p>
  );
}
