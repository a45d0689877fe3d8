import 'server-only';

/** Content as the store keeps it: its SHA-256, and for the Postgres store its large object. */
export type BlobRef = { sha256: string; loOid: number | null };

/**
 * Where file content lives, by SHA-256 (ADR 058). An upload is first written to a temporary file under DATA_DIR
 * (ingest.ts: hashed and counted as it streams); `keep` then makes it durable under its hash, so a database row is
 * only ever written for content already durable, and a crash before that leaves nothing visible.
 */
export interface FileStore {
  readonly kind: 'local' | 'postgres';
  /** Make the temporary file's content durable under sha256 (kept once: content already there is reused). */
  keep(tempPath: string, sha256: string, size: number): Promise<BlobRef>;
  /** The bytes [start, end) of the content (all of it without a range), as a stream of chunks. */
  read(blob: BlobRef, range?: { start: number; end: number }): AsyncIterable<Uint8Array>;
  /** Remove content no version names any more (its row is already deleted); missing content is fine. */
  remove(blob: BlobRef): Promise<void>;
  /** Content on the store without a file_blobs row (a crash between keep and the row): removed at start-up. */
  orphans(known: (sha256: string) => Promise<boolean>): AsyncIterable<BlobRef>;
}
