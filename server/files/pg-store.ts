import 'server-only';
import fs from 'node:fs/promises';
import type pg from 'pg';
import type { BlobRef, FileStore } from './file-store-types';
import { paceScavenges } from './scavenge-pacer';

/** Bytes per lo_put / lo_get round trip: memory holds one chunk of a file, never the file. */
export const LO_CHUNK_BYTES = 256 * 1024;

/** How often keep starts over when another process freed the same content while this one was keeping it. */
const KEEP_ATTEMPTS = 3;

/**
 * The content a caller kept was freed by another process's sweep before a row named it (its file_blobs row is gone):
 * keep it again. Thrown by keep's rare race and by recordBlob (blob-rows.ts) inside the naming transaction.
 */
export class ContentGone extends Error {
  constructor(readonly sha256: string) {
    super(`Content ${sha256.slice(0, 12)} was freed by another process before a row named it`);
    this.name = 'ContentGone';
  }
}

/**
 * Content in Postgres large objects, shared by every process on the database (ADR 058). `keep` streams the temporary
 * file into a new large object (lo_create, then lo_put chunk by chunk) and writes its file_blobs row in the same
 * transaction: a crash or an error before COMMIT takes the large object with it, and the row, the only way to find
 * the object, is never visible before the content is whole. Reads are lo_get ranges. Freeing is `freeUnnamed`: the
 * row delete and lo_unlink in one SERIALIZABLE transaction, so a concurrent upload that names the same content makes
 * one of the two retry (blob-rows.ts).
 */
export function pgFileStore(pool: pg.Pool): FileStore {
  async function oidOf(sha256: string): Promise<number | null> {
    const { rows } = await pool.query<{ lo_oid: number | null }>('select lo_oid from file_blobs where sha256 = $1', [sha256]);
    return rows[0]?.lo_oid == null ? null : Number(rows[0].lo_oid);
  }

  /** One attempt: the existing object's oid, or a new object written from tempPath with its row (null: start over). */
  async function keepOnce(tempPath: string, sha256: string, size: number): Promise<number | null> {
    const existing = await oidOf(sha256);
    // The same bytes are already kept (their hash says so): one copy, shared by every process.
    if (existing !== null) return existing;
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out client whose connection dies emits 'error' besides failing its query: unheard, that would be an
    // uncaught exception ending the process. The failed query is what the caller sees.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query('begin isolation level read committed');
      try {
        const oid = Number((await client.query<{ oid: number }>('select lo_create(0) as oid')).rows[0]!.oid);
        const handle = await fs.open(tempPath, 'r');
        try {
          const chunk = Buffer.allocUnsafe(LO_CHUNK_BYTES);
          let offset = 0;
          for (;;) {
            const { bytesRead } = await handle.read(chunk, 0, LO_CHUNK_BYTES, offset);
            if (bytesRead === 0) break;
            await client.query('select lo_put($1, $2, $3)', [oid, offset, chunk.subarray(0, bytesRead)]);
            offset += bytesRead;
            paceScavenges(bytesRead); // each lo_put's protocol message is a fresh buffer the size of the chunk
          }
          if (offset !== size) throw new Error(`The upload's temporary file holds ${offset} bytes, not ${size}`);
        } finally {
          await handle.close();
        }
        // Another process keeping the same bytes at once: its insert wins (ours waits for it), our object is rolled back.
        const inserted = await client.query('insert into file_blobs (sha256, size, lo_oid) values ($1, $2, $3) on conflict (sha256) do nothing', [sha256, size, oid]);
        if (inserted.rowCount === 0) {
          await client.query('rollback');
          return oidOf(sha256);
        }
        await client.query('commit');
        return oid;
      } catch (err) {
        await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
        throw err;
      }
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  return {
    kind: 'postgres',
    async keep(tempPath, sha256, size) {
      // The temporary file stays: the caller discards it once a row names the content (it may need to keep it again).
      for (let attempt = 1; attempt <= KEEP_ATTEMPTS; attempt++) {
        const oid = await keepOnce(tempPath, sha256, size);
        if (oid !== null) return { sha256, loOid: oid };
      }
      throw new ContentGone(sha256);
    },
    async *read(blob: BlobRef, range) {
      const oid = blob.loOid ?? (await oidOf(blob.sha256));
      if (oid === null) throw new Error(`No stored content ${blob.sha256.slice(0, 12)}`);
      let offset = range?.start ?? 0;
      const end = range?.end ?? Number.POSITIVE_INFINITY;
      while (offset < end) {
        const want = Math.min(LO_CHUNK_BYTES, end - offset);
        const { rows } = await pool.query<{ bytes: Buffer }>('select lo_get($1, $2, $3) as bytes', [oid, offset, want]);
        const bytes = rows[0]!.bytes;
        if (bytes.byteLength > 0) yield bytes;
        offset += bytes.byteLength;
        // Past the end of the object: a short (or empty) chunk.
        if (bytes.byteLength < want) return;
      }
    },
    async remove(blob) {
      // Freeing happens in the row's transaction (freeUnnamed); this only unlinks an object no row names any more.
      if (blob.loOid === null) return;
      await pool.query(
        'select lo_unlink(m.oid) from pg_largeobject_metadata m where m.oid = $1::oid and not exists (select 1 from file_blobs b where b.lo_oid = $1::bigint)',
        [blob.loOid],
      );
    },
    // A large object and its row commit together, so there is never content without a row to find.
    async *orphans() {},
  };
}

/**
 * Inside a SERIALIZABLE transaction (the sweep's writeTx; client is its connection): delete the content's row when no
 * file version nor skill file names it, and unlink its large object in the same transaction. A concurrent upload's
 * transaction reads that row and inserts a version: Postgres fails one of the two, whose retry then sees the other's
 * outcome. Answers whether the content was freed.
 */
export async function freeUnnamed(client: pg.ClientBase, sha256: string): Promise<boolean> {
  const { rows } = await client.query<{ lo_oid: number | null }>(
    `delete from file_blobs b where b.sha256 = $1
       and not exists (select 1 from file_versions v where v.sha256 = $1)
       and not exists (select 1 from skill_files s where s.sha256 = $1)
     returning b.lo_oid`,
    [sha256],
  );
  if (!rows.length) return false;
  const oid = rows[0]!.lo_oid;
  if (oid != null) await client.query('select lo_unlink(m.oid) from pg_largeobject_metadata m where m.oid = $1::oid', [oid]);
  return true;
}
