import 'server-only';
import { eq } from 'drizzle-orm';
import { schema, type Db } from '@/server/db';
import { ContentGone } from './pg-store';
import type { BlobRef } from './store';

/**
 * Inside the transaction that names kept content (a file version, a skill file): its file_blobs row. The local store
 * leaves the row to this transaction. The Postgres store committed the row with its large object, and another process's
 * sweep may have freed both since: reading the row here makes that sweep and this transaction conflict (SERIALIZABLE,
 * one retries), and a row already gone is ContentGone, so the caller keeps the content again instead of naming a freed
 * object.
 */
export async function recordBlob(tx: Db, blob: BlobRef, size: number): Promise<void> {
  if (blob.loOid === null) {
    await tx.insert(schema.fileBlobs).values({ sha256: blob.sha256, size, loOid: null }).onConflictDoNothing();
    return;
  }
  const [row] = await tx.select({ loOid: schema.fileBlobs.loOid }).from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, blob.sha256));
  if (!row || row.loOid !== blob.loOid) throw new ContentGone(blob.sha256);
}
