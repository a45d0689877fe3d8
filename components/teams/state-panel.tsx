'use client';

import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { Alert, Spinner } from '@/components/ui/misc';
import { apiFetch } from '@/lib/api-client';
import { StateSections } from './state/state-sections';
import { stateKey, type StateView } from './state/state-view';

/**
 * The "Team state" panel: the team's public entries (current, then archived). It refetches whenever the team's
 * activity revision changes (every state write bumps it) and keeps showing the previous data meanwhile, so the
 * panel never flickers and nothing else on the page (drafts, open details) is disturbed.
 */
export function StatePanel({ teamId, revision }: { teamId: string; revision: number | undefined }) {
  const headingId = useId();
  const [archivedOpen, setArchivedOpen] = useState(false);
  const query = useQuery({
    queryKey: stateKey(teamId, revision),
    queryFn: ({ signal }) => apiFetch<StateView>(`/api/v1/teams/${encodeURIComponent(teamId)}/state`, { signal }),
    placeholderData: keepPreviousData,
  });
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
