'use client';

import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Badge, EmptyState, Spinner } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { LoadError } from '@/components/ui/load-error';
import { conversationListQuery } from './queries';
import { DeleteConversationDialogLazy, TeamMemberNote } from './delete-conversation-button';
import { Time } from '@/components/ui/time';
import { ACTIVITY_BADGE, conversationLabel, sortByUpdated } from './list-format';

/** Every conversation of the signed-in person, newest first. */
export function ConversationList() {
  const query = useQuery(conversationListQuery());
  // One dialog for the list, outside its rows: the row it deletes goes away while the dialog is still open, and focus
  // then goes to the heading above the list (the kit's Modal), not to <body>.
  const [deleting, setDeleting] = useState<{ id: string; agentName: string } | null>(null);

  if (query.isPending) return <Spinner label="Loading conversations…" />;
  if (query.isError) {
    return (
      <LoadError query={query}>Couldn’t load your conversations.</LoadError>
    );
  }

  const conversations = sortByUpdated(query.data.conversations);
  const dialog = deleting ? <DeleteConversationDialogLazy conversation={deleting} onClose={() => setDeleting(null)} /> : null;
  if (conversations.length === 0) {
    return (
      <>
        <EmptyState title="No conversations yet">
          Open{' '}
          <Link href="/agents" className="text-indigo-700 underline dark:text-indigo-300">
            Agents
          </Link>{' '}
          and press <strong>Chat</strong> on any agent to start one.
        </EmptyState>
        {dialog}
      </>
    );
  }

  return (
    <>
      <ul className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
        {conversations.map((c) => (
          <li key={c.id} className="flex flex-wrap items-start gap-x-1 pr-2 hover:bg-zinc-50 sm:flex-nowrap dark:hover:bg-zinc-800">
            <Link
              href={`/conversations/${encodeURIComponent(c.id)}`}
              className="block min-w-0 flex-1 px-4 py-3 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-500"
            >
              <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5">
                <span className="flex min-w-0 flex-wrap items-baseline gap-x-2 gap-y-0.5">
                  <span className="min-w-0 font-medium break-words text-zinc-900 dark:text-zinc-100">{c.agentName}</span>
                  {c.activity ? <Badge tone={ACTIVITY_BADGE[c.activity].tone}>{ACTIVITY_BADGE[c.activity].label}</Badge> : null}
                </span>
                <Time iso={c.updatedAt} format="relative" className="text-xs text-zinc-600 dark:text-zinc-400" />
              </div>
              <p className="mt-0.5 line-clamp-2 text-sm break-words text-zinc-600 [overflow-wrap:anywhere] dark:text-zinc-400">
                {conversationLabel(c)}
              </p>
            </Link>
            {/* Beside the link, never inside it: its own stop in the tab order. A team's note, a sentence, goes below the
                title on a phone, where beside it would leave the title a narrow column. */}
            <div className={c.team ? 'basis-full px-4 pb-3 sm:basis-auto sm:px-0 sm:pt-2.5 sm:pb-0' : 'pt-2.5'}>
              {c.team ? (
                <TeamMemberNote team={c.team} className="sm:max-w-56" />
              ) : (
                <Button variant="ghost" size="sm" aria-haspopup="dialog" aria-label={`Delete conversation with ${c.agentName}`} onClick={() => setDeleting(c)}>
                  Delete
                </Button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {dialog}
    </>
  );
}
