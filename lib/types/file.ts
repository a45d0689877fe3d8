/**
 * The files API's shapes (docs/api.md "Files"): a team workspace's or a chat's files, their versions, previews and
 * diffs. Shared by the browser's reads (components/files/queries.ts) and the server's answers.
 */

/** Who wrote a version: the person, or a team member (a member's run wrote an artifact). */
export type ApiFileAuthor = { kind: 'person' } | { kind: 'member'; memberId: string; name: string };

/** One file as listed; revision, size and mediaType are its latest version's. */
export type ApiFile = {
  id: string;
  name: string;
  size: number;
  mediaType: string;
  revision: number;
  sha256: string;
  author: ApiFileAuthor;
  runId: string | null;
  createdAt: string;
  updatedAt: string;
};

export type ApiFileVersion = {
  revision: number;
  size: number;
  mediaType: string;
  sha256: string;
  author: ApiFileAuthor;
  runId: string | null;
  createdAt: string;
};

/** GET /api/v1/files/:id */
export type ApiFileDetail = { file: ApiFile; versions: ApiFileVersion[] };

export type ApiFilePreviewKind = 'markdown' | 'code' | 'text' | 'image' | 'pdf' | 'docx' | 'binary';

/** GET /api/v1/files/:id/preview?revision=N; `text` is bounded (`truncated` says it was cut). */
export type ApiFilePreview = { kind: ApiFilePreviewKind; text?: string; language?: string; truncated: boolean };

/** GET /api/v1/files/:id/diff?from=N&to=M: a unified diff of two text versions. */
export type ApiFileDiff = { diff: string };

/** Where files live: a team's workspace or a chat. */
export type FileScope = { kind: 'team'; id: string } | { kind: 'conversation'; id: string };

/**
 * A file a chat message or team request attached (docs/api.md "Attachments"): its name, type and size as sent.
 * `fileId` and `revision` (the file's newest) open it; a file deleted since is `deleted`, with neither.
 */
export type ApiAttachment =
  | { fileId: string; name: string; mediaType: string; size: number; revision: number; deleted: false }
  | { fileId: null; name: string; mediaType: string; size: number; revision: null; deleted: true };
