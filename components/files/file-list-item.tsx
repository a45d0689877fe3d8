'use client';

import { Button } from '@/components/ui/button';
import { buttonVariants } from '@/components/ui/button-variants';
import { cn } from '@/components/ui/cn';
import { Time } from '@/components/ui/time';
import type { ApiFile } from '@/lib/types/file';
import { formatBytes } from '@/lib/byte-size';
import { authorLabel, fileContentUrl } from './file-format';

/**
 * One file in the Files panel: its name (opens the preview), who wrote its latest version, its size, its version
 * and when it changed; Download and Delete beside it. On a phone the facts wrap under the name.
 */
export function FileListItem({ file, onOpen, onDelete }: { file: ApiFile; onOpen: () => void; onDelete: () => void }) {
  return (
    <li className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 py-2 last:border-b-0 dark:border-zinc-800">
      <div className="min-w-0 flex-1 basis-48">
        <button
          type="button"
          onClick={onOpen}
          className="max-w-full truncate text-left text-sm font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300"
          title={file.name}
          aria-label={`Preview ${file.name}`}
        >
          {file.name}
        </button>
        <p className="flex flex-wrap gap-x-2 text-xs text-zinc-600 dark:text-zinc-400">
          <span>
            <span className="sr-only">Author: </span>
            {authorLabel(file.author)}
          </span>
          <span aria-hidden>·</span>
          <span>
            <span className="sr-only">Size: </span>
            {formatBytes(file.size)}
          </span>
          <span aria-hidden>·</span>
          <span>
            <span className="sr-only">Version </span>
            <span aria-hidden>v</span>
            {file.revision}
          </span>
          <span aria-hidden>·</span>
          <Time iso={file.updatedAt} format="when" prefix="Updated " />
        </p>
      </div>
      <div className="flex shrink-0 gap-1">
        <a
          href={fileContentUrl(file.id, file.revision)}
          download={file.name}
          className={cn(buttonVariants({ variant: 'secondary', size: 'sm' }))}
          aria-label={`Download ${file.name}`}
        >
          Download
        </a>
        <Button variant="ghost" size="sm" onClick={onDelete} aria-label={`Delete ${file.name}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}
