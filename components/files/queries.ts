/**
 * The files reads, as TanStack `queryOptions` factories, one per endpoint, under ['files', …]: a scope's list under
 * its own key (push invalidates it: use-team-events.ts, use-conversation-events.ts), and each file's detail,
 * previews and diffs under fileKeys.file(id), so a delete forgets them all at once. Writes: uploads are streamed
 * POSTs (upload.ts); a delete is a server action (app/(app)/files/actions.ts).
 */
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import type { ApiFile, ApiFileDetail, ApiFileDiff, ApiFilePreview, FileScope } from '@/lib/types/file';
import { filePath, scopeFilesPath } from './file-format';

export const fileKeys = {
  all: ['files'] as const,
  scope: (scope: FileScope) => ['files', 'scope', scope.kind, scope.id] as const,
  file: (fileId: string) => ['files', 'file', fileId] as const,
  preview: (fileId: string, revision: number) => ['files', 'file', fileId, 'preview', revision] as const,
  diff: (fileId: string, from: number, to: number) => ['files', 'file', fileId, 'diff', from, to] as const,
};

/** A missing file (deleted, or another owner's) or a lost session won't answer differently if asked again. */
const permanent = (e: unknown) => e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404 || e.status === 422);
const retry = (count: number, e: Error) => !permanent(e) && count < 2;

/** GET <scope>/files: newest first. */
export const fetchFiles = (scope: FileScope, signal?: AbortSignal) => apiFetch<{ files: ApiFile[] }>(scopeFilesPath(scope), { signal });

/** GET /api/v1/files/:id: the file and its versions. */
export const fetchFile = (fileId: string, signal?: AbortSignal) => apiFetch<ApiFileDetail>(filePath(fileId), { signal });

/** GET /api/v1/files/:id/preview?revision=N */
export const fetchFilePreview = (fileId: string, revision: number, signal?: AbortSignal) =>
  apiFetch<ApiFilePreview>(`${filePath(fileId)}/preview?${new URLSearchParams({ revision: String(revision) })}`, { signal });

/** GET /api/v1/files/:id/diff?from=N&to=M (422 when either version is not text). */
export const fetchFileDiff = (fileId: string, from: number, to: number, signal?: AbortSignal) =>
  apiFetch<ApiFileDiff>(`${filePath(fileId)}/diff?${new URLSearchParams({ from: String(from), to: String(to) })}`, { signal });

export const filesQuery = (scope: FileScope) =>
  queryOptions({ queryKey: fileKeys.scope(scope), queryFn: ({ signal }) => fetchFiles(scope, signal), retry });

export const fileQuery = (fileId: string) =>
  queryOptions({ queryKey: fileKeys.file(fileId), queryFn: ({ signal }) => fetchFile(fileId, signal), retry });

/** A version's content never changes: its preview is read once. */
export const filePreviewQuery = (fileId: string, revision: number) =>
  queryOptions({
    queryKey: fileKeys.preview(fileId, revision),
    queryFn: ({ signal }) => fetchFilePreview(fileId, revision, signal),
    staleTime: Infinity,
    retry,
  });

export const fileDiffQuery = (fileId: string, from: number, to: number) =>
  queryOptions({
    queryKey: fileKeys.diff(fileId, from, to),
    queryFn: ({ signal }) => fetchFileDiff(fileId, from, to, signal),
    staleTime: Infinity,
    retry,
  });
