'use client';

import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { Alert, Spinner } from '@/components/ui/misc';
import { StateSections } from './state/state-sections';
import { teamStateQuery } from './queries';

/**
 * The "Team state" panel: the team's public entries (current, then archived). Push invalidates it whenever the
 * team moves (every state write bumps the team revision); a refetch keeps showing the previous data meanwhile, so
 * the panel never flickers and nothing else on the page (drafts, open details) is disturbed.
 */
export function StatePanel({ teamId }: { teamId: string }) {
  const headingId = useId();
  const [archivedOpen, setArchivedOpen] = useState(false);
  const query = useQuery(teamStateQuery(teamId));
  const view = query.data;

  return (
    <section
      aria-labelledby={headingId}
      aria-busy={query.isFetching}
      className="min-w-0 rounded-lg border border-zinc-200 bg-zinc-50 p-3 sm:p-4 dark:border-zinc-800 dark:bg-zinc-950/40"
    >
      <h2 id={headingId} className="mb-3 text-base font-semibold text-zinc-900 dark:text-zinc-50">
        Team state
      </h2>
      {query.isError ? (
        <div className="mb-3">
          <Alert
            action={
              <Button variant="secondary" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
                Retry
              </Button>
            }
          >
            {view ? 'Couldn’t refresh the team state; showing what was last loaded.' : 'Couldn’t load the team state.'} {query.error.message}
          </Alert>
        </div>
      ) : null}
      {view ? (
        <StateSections view={view} archivedOpen={archivedOpen} onArchivedToggle={setArchivedOpen} />
      ) : query.isPending ? (
        <Spinner label="Loading team state…" />
      ) : null}
    </section>
  );
}
