import Link from 'next/link';
import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import type { ApiStateEntry } from '@/lib/types/team';
import { KIND_LABEL } from './state-view';
import { textLink } from '@/components/ui/button-variants';

/**
 * One public-state entry. Title and content were written by a model: rendered as plain text (React escapes it),
 * with line breaks preserved, never as HTML or markdown.
 */
export function StateEntryCard({ entry, actions }: { entry: ApiStateEntry; actions?: ReactNode }) {
  const kind = KIND_LABEL[entry.kind];
  const titleId = `state-${entry.id}-title`;
  const edited = entry.revision > 1 || entry.updatedBy.memberId !== entry.createdBy.memberId;
  return (
    <article
      aria-labelledby={titleId}
      className="min-w-0 rounded-md border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Badge tone={kind.tone}>{kind.one}</Badge>
        {entry.status === 'archived' ? <Badge>Archived</Badge> : null}
        <h4 id={titleId} className="min-w-0 flex-1 wrap-anywhere text-sm font-semibold text-zinc-900 dark:text-zinc-100">
          {entry.title}
        </h4>
        <span className="text-xs text-zinc-500 tabular-nums dark:text-zinc-400" title={`Entry revision ${entry.revision}`}>
          rev {entry.revision}
        </span>
      </div>
      {entry.content ? (
        <p className="mt-1.5 whitespace-pre-wrap wrap-anywhere text-sm text-zinc-800 dark:text-zinc-200">{entry.content}</p>
      ) : null}
      <p className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        <span className="min-w-0 wrap-anywhere">By {entry.createdBy.name}</span>
        {edited ? <span className="min-w-0 wrap-anywhere">Edited by {entry.updatedBy.name}</span> : null}
        <Time iso={entry.updatedAt} format="when" prefix={edited ? 'Updated' : 'Published'} />
        {entry.source.conversationId ? (
          <Link
            href={`/conversations/${encodeURIComponent(entry.source.conversationId)}`}
            className={textLink}
          >
            Source conversation<span className="sr-only"> of “{entry.title}”</span>
          </Link>
        ) : null}
      </p>
      {actions ? <div className="mt-2 flex flex-wrap gap-2">{actions}</div> : null}
    </article>
  );
}
