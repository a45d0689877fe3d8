'use client';

import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { formatBytes } from '@/lib/byte-size';
import { progressPercent, type PendingAttachment } from './attach-state';

/**
 * The uploads a composer or the Files panel holds: each with its name and size, a progress bar (role progressbar
 * with aria-valuenow) and Cancel while it uploads; Remove once it finished or failed, with the refusal in words.
 */
export function UploadProgressList({
  items,
  label,
  onCancel,
  onRemove,
}: {
  items: PendingAttachment[];
  label: string;
  onCancel: (key: string) => void;
  onRemove: (key: string) => void;
}) {
  if (items.length === 0) return null;
  return (
    <ul aria-label={label} className="space-y-1.5">
      {items.map((item) => {
        const percent = progressPercent(item);
        return (
          <li
            key={item.key}
            className={cn(
              'rounded-md border px-2 py-1.5 text-sm',
              item.status === 'failed'
                ? 'border-red-300 bg-red-50 dark:border-red-900 dark:bg-red-950/60'
                : 'border-zinc-200 bg-white dark:border-zinc-700 dark:bg-zinc-900',
            )}
          >
            <div className="flex min-w-0 items-center gap-2">
              <span className="min-w-0 flex-1 truncate font-medium text-zinc-900 dark:text-zinc-100" title={item.name}>
                {item.name}
              </span>
              <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">
                {item.status === 'uploading' ? `${percent}% of ${formatBytes(item.size)}` : formatBytes(item.size)}
              </span>
              {item.status === 'uploading' ? (
                <Button variant="ghost" size="sm" onClick={() => onCancel(item.key)} aria-label={`Cancel upload of ${item.name}`}>
                  Cancel
                </Button>
              ) : (
                <Button variant="ghost" size="sm" onClick={() => onRemove(item.key)} aria-label={`Remove ${item.name}`}>
                  Remove
                </Button>
              )}
            </div>
            {item.status === 'uploading' ? (
              <div
                role="progressbar"
                aria-label={`Uploading ${item.name}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                aria-valuetext={`${percent}%`}
                className="mt-1 h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700"
              >
                <div className="h-full bg-indigo-600 transition-[width] dark:bg-indigo-400" style={{ width: `${percent}%` }} />
              </div>
            ) : null}
            {item.status === 'failed' && item.error ? (
              <p role="alert" className="mt-1 text-xs break-words text-red-700 dark:text-red-300">
                {`${item.name}: ${item.error}`}
              </p>
            ) : null}
            {item.status === 'done' ? <p className="sr-only">{`${item.name} attached`}</p> : null}
          </li>
        );
      })}
    </ul>
  );
}
