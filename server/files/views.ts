import 'server-only';
import type { ApiFile, ApiFileAuthor, ApiFileVersion } from '@/lib/types/file';
import type { FileRow, FileVersionRow } from '@/server/db/schema';

export function authorOf(version: Pick<FileVersionRow, 'authorKind' | 'authorMemberId' | 'authorName'>): ApiFileAuthor {
  return version.authorKind === 'member' && version.authorMemberId
    ? { kind: 'member', memberId: version.authorMemberId, name: version.authorName ?? '' }
    : { kind: 'person' };
}

export function versionView(version: FileVersionRow): ApiFileVersion {
  return {
    revision: version.revision,
    size: Number(version.size),
    mediaType: version.mediaType,
    sha256: version.sha256,
    author: authorOf(version),
    runId: version.runId,
    createdAt: version.createdAt.toISOString(),
  };
}

/** A file as the API shows it: its latest version's revision, size, type, hash and author. */
export function fileView(file: FileRow, latest: FileVersionRow): ApiFile {
  return {
    id: file.id,
    name: file.name,
    size: Number(latest.size),
    mediaType: latest.mediaType,
    revision: file.revision,
    sha256: latest.sha256,
    author: authorOf(latest),
    runId: latest.runId,
    createdAt: file.createdAt.toISOString(),
    updatedAt: file.updatedAt.toISOString(),
  };
}
