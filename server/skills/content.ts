import 'server-only';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, type Db } from '@/server/db';
import { discard, ingest, type Ingested } from '@/server/files/ingest';
import { recordBlob } from '@/server/files/blob-rows';
import { withContentLock } from '@/server/files/locks';
import { ContentGone } from '@/server/files/pg-store';
import { fileStore } from '@/server/files/store';

/** A skill file's bytes, made durable in the file store and ready to be named by a skill_files row. */
export type KeptText = { path: string; sha256: string; size: number; loOid: number | null };

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Hold the file store's content lock of every hash at once (in a fixed order, so two callers never wait on each other). */
async function withContentLocks<T>(shas: readonly string[], fn: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(shas)].sort();
  const step = (i: number): Promise<T> => (i === sorted.length ? fn() : withContentLock(sorted[i]!, () => step(i + 1)));
  return step(0);
}

/**
 * Keep a skill's files in the file store (ADR 058's content layer: by SHA-256, stored once, durable before a row
 * names it) and run `write` — the transaction that names them in skill_files — while their content locks are held,
 * so the sweep can't free content between the keep and the row. The file_blobs rows are written by `write`'s
 * transaction through `recordBlobs`.
 */
export async function keepSkillFiles<T>(files: ReadonlyArray<{ path: string; bytes: Uint8Array }>, write: (kept: KeptText[]) => Promise<T>): Promise<T> {
  const ingested: Array<{ path: string; file: Ingested }> = [];
  try {
    for (const f of files) ingested.push({ path: f.path, file: await ingest(once(f.bytes), Math.max(LIMITS.skills.fileBytes, LIMITS.skills.body.maxBytes)) });
  } catch (err) {
    await Promise.all(ingested.map((i) => discard(i.file)));
    throw err;
  }
  const store = fileStore();
  return withContentLocks(
    ingested.map((i) => i.file.sha256),
    async () => {
      try {
        for (let attempt = 1; ; attempt++) {
          const kept: KeptText[] = [];
          for (const { path, file } of ingested) {
            const blob = await store.keep(file.tempPath, file.sha256, file.size);
            kept.push({ path, sha256: file.sha256, size: file.size, loOid: blob.loOid });
          }
          try {
            return await write(kept);
          } catch (err) {
            // Another process freed some of the content before write named it (Postgres store): keep it again.
            if (!(err instanceof ContentGone) || attempt >= 3) throw err;
          }
        }
      } finally {
        // The local store moved the temporary files into place; the Postgres store copied them into large objects.
        await Promise.all(ingested.map((i) => discard(i.file)));
      }
    },
  );
}

/** The file_blobs rows of kept content (already there for content stored before: kept once). */
export async function recordBlobs(tx: Db, kept: readonly KeptText[]): Promise<void> {
  for (const k of kept) await recordBlob(tx, { sha256: k.sha256, loOid: k.loOid }, k.size);
}

/** A skill file's text from the store (its row names content the store holds). */
export async function readContentText(sha256: string): Promise<string> {
  const [blob] = await getDb().select({ loOid: schema.fileBlobs.loOid }).from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, sha256)).limit(1);
  const chunks: Uint8Array[] = [];
  for await (const chunk of fileStore().read({ sha256, loOid: blob?.loOid ?? null })) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
