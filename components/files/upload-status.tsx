'use client';

import { UploadProgressList } from './upload-progress-list';
import type { Attachments } from './use-attachments';

/**
 * What a composer's attach control and the Files panel show of their uploads: each file in flight, finished or
 * refused (UploadProgressList), and the notice a whole pick or drop got (too many files at once) as an alert.
 */
export function UploadStatus({ uploads, label }: { uploads: Attachments; label: string }) {
  return (
    <>
      <UploadProgressList items={uploads.state.items} label={label} onCancel={uploads.cancel} onRemove={uploads.remove} />
      {uploads.state.notice ? (
        <p role="alert" className="text-sm break-words text-red-600 dark:text-red-400">
          {uploads.state.notice}
        </p>
      ) : null}
    </>
  );
}
