'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { Badge, EmptyState, PageHeader } from '@/components/ui/misc';
import { QueryGate } from '@/components/ui/query-gate';
import { Time } from '@/components/ui/time';
import { TEAM_STATUS_BADGE, workBadges } from './feed';
import { teamListQuery } from './queries';
import { useTeamListEvents } from './use-team-list-events';
import { ButtonLink } from '@/components/ui/button-link';

/** The owner's teams, newest first, with member count, status and waiting work. */
export function TeamList() {
  const live = useTeamListEvents();
  // Push keeps the statuses and "waiting for input" badges current; a timer only while the stream is down.
  const teams = useQuery({ ...teamListQuery(), ...live.poll });

  return (
    <div className="w-full">
      <PageHeader title="Teams">
        <ButtonLink href="/teams/new">
          New team
        </ButtonLink>
      </PageHeader>

      <QueryGate query={teams} loading="Loading teams…" failed="Couldn’t load your teams.">
        {({ teams: list }) =>
          list.length === 0 ? (
            <EmptyState title="No teams yet">
              <p>Compose 2–8 of your agents into a team with a goal, then direct work to them by @mention.</p>
              <ButtonLink href="/teams/new" className="mt-4">
                New team
              </ButtonLink>
            </EmptyState>
          ) : (
            <ul className="space-y-3" aria-label="Your teams">
              {list.map((team) => {
                const status = TEAM_STATUS_BADGE[team.status];
                return (
                  <li key={team.id}>
                    <Link
                      href={`/teams/${team.id}`}
                      className="block rounded-lg border border-zinc-200 bg-white p-4 hover:border-indigo-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-indigo-700"
                    >
                      <div className="flex flex-wrap items-center gap-2">
                        <span className="min-w-0 break-words font-medium text-zinc-900 dark:text-zinc-50">{team.name}</span>
                        <Badge tone={status.tone}>{status.label}</Badge>
                        {workBadges(team).map((b) => (
                          <Badge key={b.label} tone={b.tone}>
                            {b.label}
                          </Badge>
                        ))}
                      </div>
                      <p className="mt-1 line-clamp-2 break-words text-sm text-zinc-600 dark:text-zinc-400">{team.goal}</p>
                      <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
                        {team.memberCount} members · created{' '}
                        <Time iso={team.createdAt} format="date" />
                      </p>
                    </Link>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryGate>
    </div>
  );
}
