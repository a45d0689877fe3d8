'use client';

import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, EmptyState, Spinner } from '@/components/ui/misc';
import { LoadError } from '@/components/ui/load-error';
import { teamQuery } from '@/components/teams/queries';
import { ApiError } from '@/lib/api-client';
import { formatCount, totalTokens } from './layout';
import { LiveStatus } from '@/components/ui/live-status';
import { WINDOWS, teamRunsQuery, type WindowKey } from './queries';
import { hasUnfinishedRuns } from './runs-push';
import { useTeamRunsPush } from './use-team-runs-push';
import { RunsTable } from './runs-table';
import { TimelineChart } from './timeline-chart';
import { ButtonLink } from '@/components/ui/button-link';
import { TeamNotFound } from '@/components/teams/team-not-found';

const counted = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

const segment = (pressed: boolean) =>
  `h-8 px-2.5 text-sm font-medium first:rounded-l-md last:rounded-r-md border border-zinc-300 -ml-px first:ml-0 focus-visible:z-10 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-zinc-700 ${
    pressed
      ? 'bg-indigo-600 text-white dark:bg-indigo-500 dark:text-white'
      : 'bg-white text-zinc-800 hover:bg-zinc-50 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800'
  }`;

/** "Now": when the data was read, ticking every second while a run is unfinished so running bars grow between reads. */
function useNow(live: boolean, dataAt: number) {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [live]);
  return Math.max(tick, dataAt);
}

/** The team's Runs page: window picker, timeline or table of the same data, kept current by the team's stream. */
export function TeamRunsView({ teamId }: { teamId: string }) {
  const [window, setWindow] = useState<WindowKey>('day');
  const [view, setView] = useState<'timeline' | 'table'>('timeline');
  const team = useQuery(teamQuery(teamId));
  const { connection, poll } = useTeamRunsPush(teamId);
  const runs = useQuery(teamRunsQuery(teamId, window, poll));
  const live = hasUnfinishedRuns(runs.data);
  const now = useNow(live, runs.dataUpdatedAt);

  const missing = [team.error, runs.error].some((e) => e instanceof ApiError && e.status === 404);
  if (missing) return <TeamNotFound />;

  const data = runs.data;
  // A handoff is one member's request to another; the person's own requests are counted apart (the legend marks them).
  const memberHandoffs = data ? data.handoffs.filter((h) => h.fromMemberId !== null).length : 0;
  return (
    <div className="w-full min-w-0 space-y-4">
      <header className="space-y-1">
        <ButtonLink href={`/teams/${encodeURIComponent(teamId)}`} variant="link" size="inline" className="text-sm break-words [overflow-wrap:anywhere]">
          <span aria-hidden>← </span>
          {team.data ? team.data.name : 'Team'}
        </ButtonLink>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1 className="text-2xl font-semibold text-zinc-900 dark:text-zinc-50">Runs</h1>
          <LiveStatus connection={connection} />
        </div>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Who worked when, who waited on whom, and where the tokens went.</p>
      </header>

      <div className="flex flex-wrap items-center gap-3">
        <div role="group" aria-label="Window" className="flex">
          {(Object.keys(WINDOWS) as WindowKey[]).map((key) => (
            <button key={key} type="button" aria-pressed={window === key} className={segment(window === key)} onClick={() => setWindow(key)}>
              {WINDOWS[key].label}
            </button>
          ))}
        </div>
        <div role="group" aria-label="View" className="flex">
          <button type="button" aria-pressed={view === 'timeline'} className={segment(view === 'timeline')} onClick={() => setView('timeline')}>
            Timeline
          </button>
          <button type="button" aria-pressed={view === 'table'} className={segment(view === 'table')} onClick={() => setView('table')}>
            Table
          </button>
        </div>
      </div>

      {runs.isPending ? (
        <Spinner label="Loading runs…" />
      ) : runs.isError && !data ? (
        <LoadError query={runs}>Couldn’t load the runs.</LoadError>
      ) : data ? (
        <section aria-label={view === 'timeline' ? 'Timeline' : 'Table'} className="space-y-3">
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            {counted(data.runs.length, 'run', 'runs')} · {counted(memberHandoffs, 'handoff', 'handoffs')} ·{' '}
            {counted(data.handoffs.length - memberHandoffs, 'request from you', 'requests from you')} ·{' '}
            <span data-testid="team-total-tokens">{formatCount(totalTokens(data.totals))} tokens</span> in the{' '}
            {WINDOWS[window].label.toLowerCase()}
          </p>
          {data.truncated ? (
            <Alert tone="info">This window holds more runs than one view shows: only the newest {formatCount(data.runs.length)} are here. Pick a shorter window to see the rest.</Alert>
          ) : null}
          {data.runs.length === 0 ? (
            <EmptyState title={`No runs in the ${WINDOWS[window].label.toLowerCase()}`}>
              <p>Send the team a request and its members’ runs appear here.</p>
            </EmptyState>
          ) : view === 'timeline' ? (
            <TimelineChart data={data} now={now} />
          ) : (
            <RunsTable data={data} now={now} />
          )}
        </section>
      ) : null}
    </div>
  );
}
