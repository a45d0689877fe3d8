import type { ReactNode } from 'react';
import { LIMITS } from '@/lib/limits';
import type { ApiStateEntry } from '@/lib/types/team';
import { projectionUsed } from './state-draft';
import { StateEntryCard } from './state-entry-card';
import { KIND_LABEL, groupState, type StateView } from './state-view';

export const EMPTY_STATE_TEXT = 'No shared state yet — add an objective or requirement, or let members publish with publish_team_state';

/** The loaded state: active entries grouped by kind, then an "Archived" disclosure. Pure rendering. */
export function StateSections({
  view,
  archivedOpen,
  onArchivedToggle,
  entryActions,
}: {
  view: StateView;
  archivedOpen: boolean;
  onArchivedToggle: (open: boolean) => void;
  /** The person's buttons on each entry (edit, archive, restore). */
  entryActions?: (entry: ApiStateEntry) => ReactNode;
}) {
  if (view.entries.length === 0) {
    return (
      <p className="rounded-md border border-dashed border-zinc-300 p-4 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
        {EMPTY_STATE_TEXT}
      </p>
    );
  }
  const { active, archived } = groupState(view.entries);
  return (
    <div className="space-y-4">
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        {view.entries.length} of {LIMITS.publicState.entries} entries used (archived ones count) ·{' '}
        {projectionUsed(view.entries).toLocaleString('en-US')} / {LIMITS.publicState.projectionBytes.toLocaleString('en-US')} bytes
      </p>
      {active.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No active entries.</p> : null}
      {active.map((group) => (
        <section key={group.kind} aria-label={KIND_LABEL[group.kind].many} className="space-y-2">
          <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            {KIND_LABEL[group.kind].many} <span className="font-normal">({group.entries.length})</span>
          </h3>
          <ul className="space-y-2">
            {group.entries.map((entry) => (
              <li key={entry.id}>
                <StateEntryCard entry={entry} actions={entryActions?.(entry)} />
              </li>
            ))}
          </ul>
        </section>
      ))}
      {archived.length ? (
        <details open={archivedOpen} onToggle={(e) => onArchivedToggle(e.currentTarget.open)} className="group">
          <summary className="cursor-pointer rounded text-sm font-medium text-zinc-700 select-none hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-300 dark:hover:text-zinc-100">
            Archived ({archived.length})
          </summary>
          <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
            Not in the members’ shared context, but still searchable with read_team_state.
          </p>
          <ul className="mt-2 space-y-2 opacity-90">
            {archived.map((entry) => (
              <li key={entry.id}>
                <StateEntryCard entry={entry} actions={entryActions?.(entry)} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
