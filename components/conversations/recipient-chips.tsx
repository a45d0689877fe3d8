'use client';

import type { Recipient } from '@/lib/mentions/types';

/** The picked recipients of an @mention message. Only these route the message; a typed name does not. */
export function RecipientChips({ recipients, onRemove }: { recipients: Recipient[]; onRemove: (memberId: string) => void }) {
  if (recipients.length === 0) return null;
  return (
    <ul aria-label="Recipients" className="flex min-w-0 flex-wrap gap-2">
      {recipients.map((r) => (
        <li key={r.memberId} className="max-w-full min-w-0">
          <button
            type="button"
            onClick={() => onRemove(r.memberId)}
            aria-label={`Remove recipient ${r.label}`}
            className="inline-flex max-w-full items-center gap-1 rounded-full bg-indigo-100 px-3 py-1 text-sm text-indigo-900 hover:bg-indigo-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-indigo-950 dark:text-indigo-100 dark:hover:bg-indigo-900"
          >
            <span className="min-w-0 truncate">@{r.label}</span>
            <span aria-hidden>×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
