import 'server-only';
import fs from 'node:fs/promises';
import { and, eq, notExists, sql } from 'drizzle-orm';
import type pg from 'pg';
import { getDb, schema, writeTx } from '@/server/db';
import { currentTx } from '@/server/db/tx-scope';
import { stagingDir } from './local-store';
import { withContentLock } from './locks';
import { freeUnnamed } from './pg-store';
import { fileStore } from './store';

/** A file version or a skill's file (ADR 061: skills keep their files' content in this store) names the content. */
async function contentNamed(sha256: string): Promise<boolean> {
  const version = await getDb().select({ one: sql`1` }).from(schema.fileVersions).where(eq(schema.fileVersions.sha256, sha256)).limit(1);
  if (version.length) return true;
  return (await getDb().select({ one: sql`1` }).from(schema.skillFiles).where(eq(schema.skillFiles.sha256, sha256)).limit(1)).length > 0;
}

/**
 * Free content no version (nor skill file) names any more: its file_blobs row is deleted in a transaction that checks no version names
 * it (under the content lock, so an upload of the same bytes waits), then the bytes are removed. A crash between the
 * two leaves bytes without a row, which the start-up sweep removes; never a row without bytes.
 */
export async function sweepContent(shas: readonly string[]): Promise<void> {
  const store = fileStore();
  for (const sha256 of shas) {
    if (store.kind === 'postgres') {
      // The row delete and lo_unlink commit together; a concurrent upload in another process conflicts with it (pg-store.ts).
      await withContentLock(sha256, () => writeTx(() => freeUnnamed(currentTx()!.client as pg.ClientBase, sha256)));
      continue;
    }
    await withContentLock(sha256, async () => {
      const gone = await writeTx((tx) =>
        tx
          .delete(schema.fileBlobs)
          .where(
            sql`${schema.fileBlobs.sha256} = ${sha256} and ${notExists(tx.select({ one: sql`1` }).from(schema.fileVersions).where(eq(schema.fileVersions.sha256, sha256)))} and ${notExists(tx.select({ one: sql`1` }).from(schema.skillFiles).where(eq(schema.skillFiles.sha256, sha256)))}`,
          )
          .returning(),
      );
      const referenced = !gone.length && (await contentNamed(sha256));
      // No row either way and no version: bytes a crash left behind (keep done, row never written).
      if (gone.length || !referenced) await store.remove({ sha256, loOid: gone[0]?.loOid ?? null });
    });
  }
}

/**
 * Start-up (and tests): uploads a crash interrupted (temporary files), content whose versions are gone (a deleted
 * team or chat takes its files' rows with it), and bytes kept without a row (a crash between keep and the row).
 */
export async function sweepFiles(): Promise<{ staged: number; freed: number }> {
  let staged = 0;
  for (const name of await fs.readdir(stagingDir()).catch(() => [] as string[])) {
    await fs.rm(`${stagingDir()}/${name}`, { force: true });
    staged++;
  }
  const unreferenced = await getDb()
    .select({ sha256: schema.fileBlobs.sha256 })
    .from(schema.fileBlobs)
    .where(
      and(
        notExists(getDb().select({ one: sql`1` }).from(schema.fileVersions).where(eq(schema.fileVersions.sha256, schema.fileBlobs.sha256))),
        notExists(getDb().select({ one: sql`1` }).from(schema.skillFiles).where(eq(schema.skillFiles.sha256, schema.fileBlobs.sha256))),
      ),
    );
  const orphans: string[] = [];
  for await (const blob of fileStore().orphans(async (sha) => (await getDb().select({ one: sql`1` }).from(schema.fileBlobs).where(eq(schema.fileBlobs.sha256, sha)).limit(1)).length > 0)) {
    orphans.push(blob.sha256);
  }
  const shas = [...new Set([...unreferenced.map((r) => r.sha256), ...orphans])];
  await sweepContent(shas);
  return { staged, freed: shas.length };
}
