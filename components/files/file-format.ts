import type { ApiFileAuthor, FileScope } from '@/lib/types/file';

/** Who wrote a version, as the list says it: the person is "You", a member by its name. */
export function authorLabel(author: ApiFileAuthor): string {
  return author.kind === 'person' ? 'You' : author.name;
}

/** The scope's files endpoint: /api/v1/teams/:id/files or /api/v1/conversations/:id/files. */
export function scopeFilesPath(scope: FileScope): string {
  const base = scope.kind === 'team' ? 'teams' : 'conversations';
  return `/api/v1/${base}/${encodeURIComponent(scope.id)}/files`;
}

export const filePath = (fileId: string) => `/api/v1/files/${encodeURIComponent(fileId)}`;

/** The bytes of one version, as a download (attachment), or inline for an image the server serves inline. */
export function fileContentUrl(fileId: string, revision: number, inline = false): string {
  const params = new URLSearchParams({ revision: String(revision) });
  if (inline) params.set('inline', '1');
  return `${filePath(fileId)}/content?${params}`;
}

/**
 * A pick or drop with more files than there is room for: the rest is refused, and said. `where` is a composer's
 * attachments (bounded per message) or the Files panel's uploads (bounded at once).
 */
export function refusedBeyond(refused: number, max: number, where: 'message' | 'panel'): string {
  const files = refused === 1 ? '1 file was' : `${refused} files were`;
  return where === 'message'
    ? `${files} not attached: at most ${max} files go with one message.`
    : `${files} not uploaded: at most ${max} uploads run at once. Add ${refused === 1 ? 'it' : 'them'} when these finish.`;
}
