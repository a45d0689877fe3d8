'use client';

import { useParams } from 'next/navigation';
import { Badge } from '@/components/ui/misc';
import { Button } from '@/components/ui/button';
import { MEMBER_STATUS_BADGE } from './feed';
import type { ApiMember } from '@/lib/types/team';
import { ButtonLink } from '@/components/ui/button-link';

type Props = {
  members: ApiMember[];
  recipientIds: readonly string[];
  onMention: (member: ApiMember) => void;
};

/**
 * The roster: a column beside the feed on wide screens, a two-column grid on narrow ones. A phone shows every card
 * whole (no card cut at the edge of a sideways scroller with its status out of sight); the status badge drops
 * under a long name instead of squeezing it.
 */
export function MemberSidebar({ members, recipientIds, onMention }: Props) {
  // The roster is drawn on its team's page (/teams/[id]): "Run over a list" starts a batch with this team's member.
  const teamId = useParams<{ id: string }>()?.id ?? '';
  return (
    <aside aria-labelledby="members-heading" className="min-w-0 md:w-64 md:shrink-0">
      <h2 id="members-heading" className="mb-2 text-sm font-semibold text-zinc-800 dark:text-zinc-200">
        Members
      </h2>
      <ul className="grid grid-cols-1 gap-2 min-[360px]:grid-cols-2 sm:grid-cols-3 md:flex md:flex-col">
        {members.map((member) => {
          const status = MEMBER_STATUS_BADGE[member.status];
          const isRecipient = recipientIds.includes(member.id);
          return (
            <li
              key={member.id}
              className="relative min-w-0 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900"
            >
              <div className="flex flex-wrap items-start justify-between gap-x-2 gap-y-1">
                <div className="min-w-0">
                  <p className="wrap-anywhere text-sm font-medium text-zinc-900 dark:text-zinc-100">{member.name}</p>
                  <p className="truncate text-xs text-zinc-500 dark:text-zinc-400" title={member.agentName}>
                    <span className="sr-only">Agent: </span>
                    {member.agentName}
                    {member.agentId === null ? ' (agent deleted)' : ''}
                  </p>
                </div>
                <Badge tone={status.tone}>{status.label}</Badge>
              </div>
              <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1">
                <Button
                  variant="secondary"
                  size="sm"
                  onClick={() => onMention(member)}
                  aria-label={`Mention ${member.name}`}
                  title={isRecipient ? `${member.name} is already a recipient` : undefined}
                >
                  Mention
                </Button>
                {member.agentId && teamId ? (
                  <ButtonLink
                    href={`/batches/new?teamId=${encodeURIComponent(teamId)}&memberId=${encodeURIComponent(member.id)}`}
                    variant="link"
                    size="inline"
                    className="text-sm"
                  >
                    Run over a list<span className="sr-only"> with {member.name}</span>
                  </ButtonLink>
                ) : null}
                {member.conversationId ? (
                  <ButtonLink href={`/conversations/${member.conversationId}`} variant="link" size="inline" className="text-sm">
                    Open conversation<span className="sr-only"> with {member.name}</span>
                  </ButtonLink>
                ) : (
                  <span className="text-xs text-zinc-500 dark:text-zinc-400">No conversation yet</span>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
