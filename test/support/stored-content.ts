import { eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { fileStore } from '@/server/files/store';

/**
 * The bytes the active file store holds for a hash, or null when it holds none: on the local store the file under
 * DATA_DIR/files/blobs, on Postgres the large object its file_blobs row names (ADR 058). Lets a suite that runs on
 * both engines assert that content was kept, or freed, without knowing where content lives.
 */
export async function storedContent(sha256: string): Promise<Buffer | null> {
  const store = fileStore();
  let loOid: number | null = null;
  if (store.kind === 'postgres') {
    const [row] = await getDb().select({ loOid: schema.fileBlobs.loOid }).from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, sha256));
    if (!row?.loOid) return null;
    loOid = row.loOid;
  }
  const parts: Uint8Array[] = [];
  try {
    for await (const part of store.read({ sha256, loOid })) parts.push(part);
  } catch (err) {
    // The local store: no file under the hash. Postgres: a row naming a missing object is a fault, not "freed".
    if (store.kind === 'local' && (err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return Buffer.concat(parts);
}

/** The hashes of all content the active store holds (the local store's blobs, or Postgres rows with their object). */
export async function heldContent(): Promise<string[]> {
  const store = fileStore();
  if (store.kind === 'local') {
    const shas: string[] = [];
    for await (const blob of store.orphans(async () => false)) shas.push(blob.sha256);
    return shas;
  }
  const held: string[] = [];
  for (const { sha256 } of await getDb().select({ sha256: schema.fileBlobs.sha256 }).from(schema.fileBlobs)) {
    if ((await storedContent(sha256)) !== null) held.push(sha256);
  }
  return held;
}
