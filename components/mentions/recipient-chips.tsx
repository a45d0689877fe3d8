'use client';

/** The picked recipients of a message, as removable chips. Only these route the message; a typed name does not. */
export function RecipientChips({
  recipients,
  onRemove,
  emptyHint,
}: {
  recipients: readonly { key: string; label: string }[];
  onRemove: (key: string) => void;
  /** Shown instead of the chips while there are none (nothing is shown when absent). */
  emptyHint?: string;
}) {
  if (recipients.length === 0) return emptyHint ? <p className="text-xs text-zinc-500 dark:text-zinc-400">{emptyHint}</p> : null;
  return (
    <ul aria-label="Recipients" className="flex min-w-0 flex-wrap gap-2">
      {recipients.map((r) => (
        <li key={r.key} className="max-w-full min-w-0">
          <button
            type="button"
            onClick={() => onRemove(r.key)}
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
