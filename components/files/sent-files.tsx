'use client';

import { useState } from 'react';
import { textLink } from '@/components/ui/button-variants';
import { cn } from '@/components/ui/cn';
import { formatBytes } from '@/lib/byte-size';
import type { ApiAttachment } from '@/lib/types/file';
import { fileContentUrl } from './file-format';
import { PaperclipIcon } from './paperclip-icon';
import { FilePreviewDialog } from './file-preview-dialog-lazy';

/**
 * The files sent with a chat message or a team request: each name opens the Files panel's preview, beside its size,
 * type and a download (the content route, served as an attachment). A file deleted since keeps its name, marked
 * deleted, with nothing to open. Names are a person's text: rendered as text only.
 */
export function SentFiles({ attachments, className }: { attachments: readonly ApiAttachment[]; className?: string }) {
  const [open, setOpen] = useState<string | null>(null);
  if (!attachments.length) return null;
  return (
    <>
      <ul aria-label="Attached files" className={cn('space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400', className)}>
        {attachments.map((file, i) => (
          <li key={file.fileId ?? `deleted-${i}`} className="flex min-w-0 flex-wrap items-baseline gap-x-1.5">
            <PaperclipIcon width={12} height={12} className="shrink-0 self-center" />
            {file.deleted ? (
              <span className="break-all text-zinc-500 line-through dark:text-zinc-500">{file.name}</span>
            ) : (
              <button type="button" onClick={() => setOpen(file.fileId)} className={cn(textLink, 'break-all text-left text-xs')}>
                {file.name}
              </button>
            )}
            <span>
              <span className="sr-only">Size: </span>
              {formatBytes(file.size)} · {file.mediaType}
            </span>
            {file.deleted ? (
              <span className="font-medium">deleted</span>
            ) : (
              <a href={fileContentUrl(file.fileId, file.revision)} download className={cn(textLink, 'text-xs')} aria-label={`Download ${file.name}`}>
                Download
              </a>
            )}
          </li>
        ))}
      </ul>
      {open ? <FilePreviewDialog fileId={open} onClose={() => setOpen(null)} /> : null}
    </>
  );
}
