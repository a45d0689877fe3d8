'use client';

import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from '@/components/ui/button';
import { buttonVariants } from '@/components/ui/button-variants';
import { DialogCloseRow } from '@/components/ui/dialog-close-row';
import { LoadError } from '@/components/ui/load-error';
import { Spinner } from '@/components/ui/misc';
import { Modal } from '@/components/ui/modal';
import { ApiError } from '@/lib/api-client';
import type { ApiFileVersion } from '@/lib/types/file';
import { formatBytes } from '@/lib/byte-size';
import { authorLabel, fileContentUrl } from './file-format';
import { FileDiffView } from './file-diff-view';
import { FilePreviewBody } from './file-preview-body';
import { fileDiffQuery, fileQuery } from './queries';

const SELECT =
  'h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';

/**
 * A file's preview: pick a version (the latest by default), see it, download that version, or compare two versions
 * (from and to) as a diff. Opened from the Files panel; the Modal keeps focus inside and gives it back on close.
 */
export default function FilePreviewDialog({ fileId, onClose }: { fileId: string; onClose: () => void }) {
  const query = useQuery(fileQuery(fileId));
  const detail = query.data;
  const gone = query.error instanceof ApiError && query.error.status === 404;
  return (
    <Modal open title={detail?.file.name ?? 'File'} onClose={onClose} className="max-w-3xl">
      <div className="mt-3 space-y-3">
        {detail ? (
          <FileVersions fileId={fileId} name={detail.file.name} versions={detail.versions} />
        ) : query.isError ? (
          gone ? (
            <p role="alert" className="text-sm text-zinc-700 dark:text-zinc-300">
              This file no longer exists.
            </p>
          ) : (
            <LoadError query={query}>Couldn’t load the file.</LoadError>
          )
        ) : (
          <Spinner label="Loading the file…" />
        )}
        <DialogCloseRow onClose={onClose} />
      </div>
    </Modal>
  );
}

const newestFirst = (versions: ApiFileVersion[]) => [...versions].sort((a, b) => b.revision - a.revision);

function FileVersions({ fileId, name, versions }: { fileId: string; name: string; versions: ApiFileVersion[] }) {
  const id = useId();
  const sorted = newestFirst(versions);
  const latest = sorted[0]?.revision ?? 1;
  const [revision, setRevision] = useState(latest);
  const [mode, setMode] = useState<'preview' | 'diff'>('preview');
  const [from, setFrom] = useState(sorted[1]?.revision ?? latest);
  const [to, setTo] = useState(latest);
  const shown = sorted.find((v) => v.revision === revision) ?? sorted[0];
  const canDiff = sorted.length > 1;

  return (
    <>
      {shown ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {`Version ${shown.revision} of ${latest} · ${authorLabel(shown.author)} · ${formatBytes(shown.size)} · ${shown.mediaType}`}
        </p>
      ) : null}
      <div className="flex flex-wrap items-end gap-2">
        {canDiff ? (
          <div role="group" aria-label="View" className="flex gap-1">
            <Button size="sm" variant={mode === 'preview' ? 'primary' : 'secondary'} aria-pressed={mode === 'preview'} onClick={() => setMode('preview')}>
              Preview
            </Button>
            <Button size="sm" variant={mode === 'diff' ? 'primary' : 'secondary'} aria-pressed={mode === 'diff'} onClick={() => setMode('diff')}>
              Compare versions
            </Button>
          </div>
        ) : null}
        {mode === 'preview' ? (
          <label htmlFor={`${id}-rev`} className="flex items-center gap-1.5 text-sm">
            Version
            <select id={`${id}-rev`} className={SELECT} value={revision} onChange={(e) => setRevision(Number(e.target.value))}>
              {sorted.map((v) => (
                <option key={v.revision} value={v.revision}>
                  {`v${v.revision} · ${authorLabel(v.author)}`}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <>
            <label htmlFor={`${id}-from`} className="flex items-center gap-1.5 text-sm">
              From
              <select id={`${id}-from`} className={SELECT} value={from} onChange={(e) => setFrom(Number(e.target.value))}>
                {sorted.map((v) => (
                  <option key={v.revision} value={v.revision}>{`v${v.revision}`}</option>
                ))}
              </select>
            </label>
            <label htmlFor={`${id}-to`} className="flex items-center gap-1.5 text-sm">
              To
              <select id={`${id}-to`} className={SELECT} value={to} onChange={(e) => setTo(Number(e.target.value))}>
                {sorted.map((v) => (
                  <option key={v.revision} value={v.revision}>{`v${v.revision}`}</option>
                ))}
              </select>
            </label>
          </>
        )}
        <a
          href={fileContentUrl(fileId, revision)}
          download={name}
          className={buttonVariants({ variant: 'secondary', size: 'sm' })}
          aria-label={`Download version ${revision} of ${name}`}
        >
          Download
        </a>
      </div>
      {mode === 'preview' ? <FilePreviewBody fileId={fileId} revision={revision} name={name} /> : <DiffPane fileId={fileId} from={from} to={to} />}
    </>
  );
}

function DiffPane({ fileId, from, to }: { fileId: string; from: number; to: number }) {
  const same = from === to;
  const query = useQuery({ ...fileDiffQuery(fileId, from, to), enabled: !same });
  if (same) return <p className="text-sm text-zinc-700 dark:text-zinc-300">Pick two different versions to compare.</p>;
  if (query.isPending) return <Spinner label="Comparing…" />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 422) {
      return <p className="text-sm text-zinc-700 dark:text-zinc-300">These versions are not text, so they can’t be compared line by line.</p>;
    }
    return <LoadError query={query}>Couldn’t compare the versions.</LoadError>;
  }
  return <FileDiffView diff={query.data.diff} from={from} to={to} />;
}
