import 'server-only';
import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { ApiFile, ApiFileAuthor, ApiFileDetail } from '@/lib/types/file';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import type { FileRow, FileVersionRow } from '@/server/db/schema';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { quotaExceeded } from './errors';
import { discard, type Ingested } from './ingest';
import { withContentLock } from './locks';
import { freeName, normalizeFileName } from './names';
import { noteFileChange } from './push';
import type { ScopeRef } from './scope';
import { recordBlob } from './blob-rows';
import { ContentGone } from './pg-store';
import { fileStore, type BlobRef } from './store';
import { sweepContent } from './sweep';
import { fileView, versionView } from './views';

export type FileLimits = { maxBytes: number; quotaBytesPerAccount: number };
export const fileLimits = (): FileLimits => ({ maxBytes: LIMITS.files.maxBytes, quotaBytesPerAccount: LIMITS.files.quotaBytesPerAccount });

/** Where content goes: a new file under a name, or a new version of a file (when expectedRevision is given, only on it). */
export type WriteTarget = { kind: 'new'; name: string } | { kind: 'version'; fileId: string; expectedRevision?: number };

/** A write refused because the file moved on: nothing was written; `current` is the revision now. */
export class RevisionConflict extends AppError {
  constructor(readonly current: number) {
    super(409, 'revision_conflict', `The file is at revision ${current}`, { expectedRevision: `The file is at revision ${current}` });
  }
}

/** The checked name for a new file, or a 422 naming the field. */
export function fileNameOrThrow(raw: string | null | undefined): string {
  const name = normalizeFileName(raw ?? '');
  if (!name) throw validationError({ name: 'A file needs a name' });
  return name;
}

/** Bytes an account's file versions take now (every version counts, shared content too: each is the person's). */
export async function usedBytes(ownerId: string, db: Db = getDb()): Promise<number> {
  const [row] = await db.select({ n: sql<number | string>`coalesce(sum(${schema.fileVersions.size}), 0)` }).from(schema.fileVersions).where(eq(schema.fileVersions.ownerId, ownerId));
  return Number(row?.n ?? 0);
}

/** Refuse before reading a body when the account is already full or the declared size can't fit. */
export async function checkRoomFor(ownerId: string, declaredBytes: number | null, limits: FileLimits = fileLimits()): Promise<void> {
  const used = await usedBytes(ownerId);
  if (used + (declaredBytes ?? 0) > limits.quotaBytesPerAccount || used >= limits.quotaBytesPerAccount) throw quotaExceeded(limits.quotaBytesPerAccount);
}

/**
 * Make ingested content a file or a version (ADR 058): the store keeps the bytes durably first, then one transaction
 * checks the quota, names the content, writes the file and version rows; the push follows the commit. A refusal
 * (quota, a revision conflict, a missing file) writes no row, and content no version names is swept.
 */
export async function commitContent(
  scope: ScopeRef,
  target: WriteTarget,
  ingested: Ingested,
  author: ApiFileAuthor,
  runId: string | null,
  limits: FileLimits = fileLimits(),
): Promise<{ file: FileRow; version: FileVersionRow }> {
  const store = fileStore();
  let kept = false;
  try {
    return await withContentLock(ingested.sha256, async () => {
      for (let attempt = 1; ; attempt++) {
        const blob = await store.keep(ingested.tempPath, ingested.sha256, ingested.size);
        kept = true;
        try {
          return await nameContent(scope, target, ingested, author, runId, limits, blob);
        } catch (err) {
          // Another process freed the content between keep and this transaction (Postgres store): keep it again.
          if (!(err instanceof ContentGone) || attempt >= 3) throw err;
        }
      }
    });
  } catch (err) {
    if (kept) await sweepContent([ingested.sha256]);
    throw err;
  } finally {
    // The local store moved the temporary file into place; the Postgres store copied it into a large object.
    await discard(ingested);
  }
}

/** commitContent's transaction: the quota, the content's row, the file and version rows. */
function nameContent(
  scope: ScopeRef,
  target: WriteTarget,
  ingested: Ingested,
  author: ApiFileAuthor,
  runId: string | null,
  limits: FileLimits,
  blob: BlobRef,
): Promise<{ file: FileRow; version: FileVersionRow }> {
  return writeTx(async (tx) => {
    if ((await usedBytes(scope.ownerId, tx)) + ingested.size > limits.quotaBytesPerAccount) throw quotaExceeded(limits.quotaBytesPerAccount);
    await recordBlob(tx, blob, ingested.size);
    const now = new Date();
    let file: FileRow | undefined;
    if (target.kind === 'new') {
      const taken = await tx.select({ name: schema.files.name }).from(schema.files).where(eq(schema.files.scope, scope.key));
      if (taken.length >= LIMITS.files.perScope) throw new AppError(409, 'file_limit', `A workspace holds at most ${LIMITS.files.perScope} files`, { file: `At most ${LIMITS.files.perScope} files here` });
      const name = freeName(target.name, new Set(taken.map((t) => t.name)));
      [file] = await tx
        .insert(schema.files)
        .values({ id: randomUUID(), ownerId: scope.ownerId, teamId: scope.teamId, conversationId: scope.conversationId, scope: scope.key, name, revision: 1, createdAt: now, updatedAt: now })
        .returning();
    } else {
      const [current] = await tx.select().from(schema.files).where(and(eq(schema.files.id, target.fileId), eq(schema.files.scope, scope.key)));
      if (!current) throw notFound('File');
      if (target.expectedRevision !== undefined && target.expectedRevision !== current.revision) throw new RevisionConflict(current.revision);
      [file] = await tx
        .update(schema.files)
        .set({ revision: current.revision + 1, updatedAt: now })
        .where(eq(schema.files.id, current.id))
        .returning();
    }
    const [version] = await tx
      .insert(schema.fileVersions)
      .values({
        id: randomUUID(),
        fileId: file!.id,
        ownerId: scope.ownerId,
        revision: file!.revision,
        sha256: ingested.sha256,
        size: ingested.size,
        mediaType: ingested.mediaType,
        authorKind: author.kind,
        authorMemberId: author.kind === 'member' ? author.memberId : null,
        authorName: author.kind === 'member' ? author.name : null,
        runId,
        createdAt: now,
      })
      .returning();
    noteFileChange({ ownerId: scope.ownerId, fileId: file!.id, teamId: scope.teamId, conversationId: scope.conversationId, revision: file!.revision });
    return { file: file!, version: version! };
  });
}

/** A scope's files, newest first. */
export async function listFiles(scope: ScopeRef): Promise<ApiFile[]> {
  const rows = await getDb()
    .select({ file: schema.files, version: schema.fileVersions })
    .from(schema.files)
    .innerJoin(schema.fileVersions, and(eq(schema.fileVersions.fileId, schema.files.id), eq(schema.fileVersions.revision, schema.files.revision)))
    .where(eq(schema.files.scope, scope.key))
    .orderBy(desc(schema.files.updatedAt), desc(schema.files.id))
    .limit(LIMITS.files.perScope);
  return rows.map((r) => fileView(r.file, r.version));
}

/** The owner's file (404 for another owner's or a missing id). */
export async function ownedFile(ownerId: string, fileId: string): Promise<FileRow> {
  const [file] = await getDb().select().from(schema.files).where(and(eq(schema.files.id, fileId), eq(schema.files.ownerId, ownerId)));
  if (!file) throw notFound('File');
  return file;
}

export async function fileVersions(fileId: string): Promise<FileVersionRow[]> {
  return getDb().select().from(schema.fileVersions).where(eq(schema.fileVersions.fileId, fileId)).orderBy(desc(schema.fileVersions.revision));
}

/** One version of a file (the latest without a revision); 404 for a revision it never had. */
export async function fileVersion(file: FileRow, revision?: number): Promise<FileVersionRow> {
  const [version] = await getDb()
    .select()
    .from(schema.fileVersions)
    .where(and(eq(schema.fileVersions.fileId, file.id), eq(schema.fileVersions.revision, revision ?? file.revision)));
  if (!version) throw notFound('Revision');
  return version;
}

export async function fileDetail(ownerId: string, fileId: string): Promise<ApiFileDetail> {
  const file = await ownedFile(ownerId, fileId);
  const versions = await fileVersions(file.id);
  const latest = versions.find((v) => v.revision === file.revision);
  if (!latest) throw notFound('File');
  return { file: fileView(file, latest), versions: versions.map(versionView) };
}

/** The bytes of a version, as chunks ([start, end) when given). */
export function versionBytes(version: FileVersionRow, range?: { start: number; end: number }): AsyncIterable<Uint8Array> {
  return fileStore().read({ sha256: version.sha256, loOid: null }, range);
}

/**
 * Delete a file and its versions (the person only: no tool calls this). Its content is freed after the commit when no
 * other version names it; a crash before that leaves content the start-up sweep frees.
 */
export async function deleteFile(ownerId: string, fileId: string): Promise<void> {
  const shas = await writeTx(async (tx) => {
    const [file] = await tx.select().from(schema.files).where(and(eq(schema.files.id, fileId), eq(schema.files.ownerId, ownerId)));
    if (!file) throw notFound('File');
    const versions = await tx.select({ sha256: schema.fileVersions.sha256 }).from(schema.fileVersions).where(eq(schema.fileVersions.fileId, file.id));
    await tx.delete(schema.files).where(eq(schema.files.id, file.id));
    noteFileChange({ ownerId, fileId: file.id, teamId: file.teamId, conversationId: file.conversationId, revision: file.revision, deleted: true });
    return [...new Set(versions.map((v) => v.sha256))];
  });
  // Committed: freeing is best effort now; what a failure or a crash leaves, the start-up sweep frees.
  await sweepContent(shas).catch((err: unknown) => console.error('[files] content not freed yet (the start-up sweep will):', err));
}
