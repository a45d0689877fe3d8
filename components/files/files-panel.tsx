'use client';

import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { cn } from '@/components/ui/cn';
import { LoadError } from '@/components/ui/load-error';
import { Spinner } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import type { ApiFile, FileScope } from '@/lib/types/file';
import { dropHighlight } from './attach-control';
import { DeleteFileDialog } from './delete-file-dialog';
import { FileListItem } from './file-list-item';
import { FilePickerButton } from './file-picker-button';
import { FilePreviewDialog } from './file-preview-dialog-lazy';
import { filesQuery } from './queries';
import { UploadStatus } from './upload-status';
import { useAttachments } from './use-attachments';

/**
 * The Files panel of a team's workspace or a chat: every file with its author, size, version and last change, newest
 * first; Upload (a picker) or a drop anywhere on the panel; a file's name opens its preview (versions, diff,
 * download). Push keeps it current: a member's write re-reads the list (use-team-events.ts,
 * use-conversation-events.ts).
 */
export function FilesPanel({ scope, className }: { scope: FileScope; className?: string }) {
  const headingId = useId();
  const query = useQuery(filesQuery(scope));
  const uploads = useAttachments(scope, { max: LIMITS.files.attachments, autoClear: true });
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ApiFile | null>(null);
  const files = query.data?.files;

  return (
    <section
      aria-labelledby={headingId}
      aria-busy={query.isFetching}
      {...uploads.dropProps}
      className={cn(
        'min-w-0 rounded-lg border border-zinc-200 bg-zinc-50 p-3 sm:p-4 dark:border-zinc-800 dark:bg-zinc-950/40',
        dropHighlight(uploads.dragging),
        className,
      )}
    >
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold text-zinc-900 dark:text-zinc-50">
          Files
        </h2>
        <FilePickerButton onFiles={uploads.add}>Upload files</FilePickerButton>
      </div>
      <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
        {uploads.dragging ? 'Drop to upload here.' : 'Drop files on this panel to upload them.'}
      </p>
      <div className="space-y-2">
        <UploadStatus uploads={uploads} label="Uploads" />
        {query.isError ? (
          <LoadError query={query}>{files ? 'Couldn’t refresh the files; showing what was last loaded.' : 'Couldn’t load files.'}</LoadError>
        ) : null}
        {files ? (
          files.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">No files yet. Upload one, or drop it here.</p>
          ) : (
            <ul aria-label="Files" className="min-w-0">
              {files.map((file) => (
                <FileListItem key={file.id} file={file} onOpen={() => setOpen(file.id)} onDelete={() => setDeleting(file)} />
              ))}
            </ul>
          )
        ) : query.isPending ? (
          <Spinner label="Loading files…" />
        ) : null}
      </div>
      {open ? <FilePreviewDialog fileId={open} onClose={() => setOpen(null)} /> : null}
      <DeleteFileDialog file={deleting} scope={scope} onClose={() => setDeleting(null)} />
    </section>
  );
}
