'use client';

import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { Alert, Spinner } from '@/components/ui/misc';
import { LoadError } from '@/components/ui/load-error';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import type { ApiStateEntry } from '@/lib/types/team';
import type { StateDialogTask } from './state/state-entry-dialog';
import { StateEntryDialog } from './state/state-entry-dialog-lazy';
import { StateSections } from './state/state-sections';
import { teamKeys, teamStateQuery } from './queries';
import { updateStateEntryAction } from '@/app/(app)/teams/actions';

/**
 * The "Team state" panel: the team's public entries (current, then archived), which the person can add to, edit,
 * archive and restore. Push invalidates it whenever the team moves (every state write bumps the team revision); a
 * refetch keeps showing the previous data meanwhile, so the panel never flickers and nothing else on the page
 * (drafts, open details, an open edit) is disturbed.
 */
export function StatePanel({ teamId }: { teamId: string }) {
  const headingId = useId();
  const [archivedOpen, setArchivedOpen] = useState(false);
  const [task, setTask] = useState<StateDialogTask | null>(null);
  const query = useQuery(teamStateQuery(teamId));
  const queryClient = useQueryClient();
  const view = query.data;
  const full = (view?.entries.length ?? 0) >= LIMITS.publicState.entries;

  // Archive and restore change the status alone, from the revision shown; a newer one opens the side-by-side choice.
  const setStatus = useMutation({
    mutationFn: ({ entry, status }: { entry: ApiStateEntry; status: ApiStateEntry['status'] }) =>
      actionData(() => updateStateEntryAction(teamId, entry.id, { expectedRevision: entry.revision, status })),
    onSuccess: (r, { entry, status }) => {
      void queryClient.invalidateQueries({ queryKey: teamKeys.state(teamId) });
      if (!r.updated) setTask({ type: 'conflict', mine: { title: entry.title, content: entry.content, status }, theirs: r.entry });
    },
  });

  const entryActions = (entry: ApiStateEntry) => {
    const what = <span className="sr-only"> “{entry.title}”</span>;
    const busy = setStatus.isPending && setStatus.variables?.entry.id === entry.id;
    return (
      <>
        <Button size="sm" variant="secondary" onClick={() => setTask({ type: 'edit', entry })}>
          Edit{what}
        </Button>
        <Button
          size="sm"
          variant="ghost"
          pending={busy}
          onClick={() => setStatus.mutate({ entry, status: entry.status === 'active' ? 'archived' : 'active' })}
        >
          {entry.status === 'active' ? 'Archive' : 'Restore'}
          {what}
        </Button>
      </>
    );
  };

  return (
    <section
      aria-labelledby={headingId}
      aria-busy={query.isFetching}
      className="min-w-0 rounded-lg border border-zinc-200 bg-zinc-50 p-3 sm:p-4 dark:border-zinc-800 dark:bg-zinc-950/40"
    >
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold text-zinc-900 dark:text-zinc-50">
          Team state
        </h2>
        {view ? (
          <Button size="sm" onClick={() => setTask({ type: 'add' })} disabled={full} title={full ? 'The team state holds 20 entries, archived ones included' : undefined}>
            Add entry
          </Button>
        ) : null}
      </div>
      {query.isError ? (
        <div className="mb-3">
          <LoadError query={query}>{view ? 'Couldn’t refresh the team state; showing what was last loaded.' : 'Couldn’t load the team state.'}</LoadError>
        </div>
      ) : null}
      {setStatus.isError ? (
        <div className="mb-3">
          <Alert action={<Button size="sm" variant="ghost" onClick={() => setStatus.reset()}>Dismiss</Button>}>
            Couldn’t {setStatus.variables?.status === 'archived' ? 'archive' : 'restore'} the entry:{' '}
            {setStatus.error instanceof ApiError ? setStatus.error.message : 'try again.'}
          </Alert>
        </div>
      ) : null}
      {full ? <p className="mb-3 text-xs text-zinc-600 dark:text-zinc-400">The team state is full: edit an existing entry instead of adding one.</p> : null}
      {view ? (
        <StateSections view={view} archivedOpen={archivedOpen} onArchivedToggle={setArchivedOpen} entryActions={entryActions} />
      ) : query.isPending ? (
        <Spinner label="Loading team state…" />
      ) : null}
      {task ? <StateEntryDialog key={JSON.stringify(task)} teamId={teamId} task={task} onClose={() => setTask(null)} /> : null}
    </section>
  );
}
