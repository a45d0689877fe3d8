'use client';

import { useId, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import type { ApiStateEntry } from '@/lib/types/team';
import { changedParts, type MyVersion } from './state-draft';

type Props = {
  mine: MyVersion;
  theirs: ApiStateEntry;
  onKeepMine: () => void;
  onKeepTheirs: () => void;
  onEditAgain: () => void;
  pending: boolean;
};

/**
 * A save that met a newer revision: both versions side by side (stacked on a phone), the differing parts marked,
 * and the person chooses. Nothing was written; "Keep theirs" writes nothing either. Texts are plain text.
 */
export function StateConflict({ mine, theirs, onKeepMine, onKeepTheirs, onEditAgain, pending }: Props) {
  const changed = changedParts(mine, theirs);
  const who = theirs.updatedBy.name === 'You' ? 'You (elsewhere)' : theirs.updatedBy.name;
  return (
    <div className="mt-4 space-y-4">
      <div className="grid gap-3 sm:grid-cols-2">
        <Version heading="Your version" version={mine} changed={changed} />
        <Version
          heading="Current version"
          version={theirs}
          changed={changed}
          note={
            <>
              Revision {theirs.revision} by {who}, <Time iso={theirs.updatedAt} format="when" />
            </>
          }
        />
      </div>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onKeepTheirs} pending={pending}>
          Keep theirs
        </Button>
        <Button variant="secondary" onClick={onEditAgain} pending={pending}>
          Edit again
        </Button>
        <Button onClick={onKeepMine} pending={pending}>
          {pending ? 'Saving…' : 'Keep mine'}
        </Button>
      </div>
    </div>
  );
}

function Version({ heading, version, changed, note }: { heading: string; version: MyVersion; changed: Array<keyof MyVersion>; note?: ReactNode }) {
  const id = useId();
  const mark = (part: keyof MyVersion) => (changed.includes(part) ? 'rounded bg-amber-100 px-1 dark:bg-amber-900/50' : '');
  return (
    <section aria-labelledby={id} className="min-w-0 rounded-md border border-zinc-200 p-3 dark:border-zinc-700">
      <h3 id={id} className="text-sm font-semibold text-zinc-900 dark:text-zinc-50">
        {heading}
      </h3>
      {note ? <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{note}</p> : null}
      <p className={`mt-2 text-sm font-medium wrap-anywhere text-zinc-900 dark:text-zinc-100 ${mark('title')}`}>{version.title}</p>
      {changed.includes('status') ? (
        <p className="mt-1">
          <Badge tone="warning">{version.status === 'archived' ? 'Archived' : 'Active'}</Badge>
        </p>
      ) : null}
      <p className={`mt-1 max-h-60 overflow-y-auto text-sm whitespace-pre-wrap wrap-anywhere text-zinc-800 dark:text-zinc-200 ${mark('content')}`}>
        {version.content || <span className="text-zinc-500 italic dark:text-zinc-400">(no content)</span>}
      </p>
    </section>
  );
}
