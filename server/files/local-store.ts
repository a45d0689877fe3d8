import 'server-only';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { dataDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@/server/db/paths';
import type { BlobRef, FileStore } from './file-store-types';

const SHA = /^[0-9a-f]{64}$/;

export const filesDir = () => path.join(dataDir(), 'files');
/** Uploads in progress; anything left here at start-up is from a crash and removed (sweep.ts). */
export const stagingDir = () => path.join(filesDir(), 'tmp');
const blobsDir = () => path.join(filesDir(), 'blobs');
/** blobs/ab/abcdef…: two hex characters of fan-out keep a directory's entries few. */
const blobPath = (sha256: string) => {
  if (!SHA.test(sha256)) throw new Error('not a SHA-256');
  return path.join(blobsDir(), sha256.slice(0, 2), sha256);
};

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
}

/**
 * Content on the local disk under DATA_DIR/files: an upload's temporary file (already fsynced by ingest.ts) is renamed
 * into blobs/ under its hash and the directory fsynced, so once `keep` returns the content survives a crash; a
 * reader only ever opens a blob that was renamed whole into place, never a partial one.
 */
export function localFileStore(): FileStore {
  return {
    kind: 'local',
    async keep(tempPath, sha256) {
      const target = blobPath(sha256);
      const dir = path.dirname(target);
      await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      if (await exists(target)) {
        // The same bytes are already kept (their hash says so): one copy.
        await fs.rm(tempPath, { force: true });
        return { sha256, loOid: null };
      }
      await fs.chmod(tempPath, PRIVATE_FILE_MODE);
      await fs.rename(tempPath, target);
      await fsyncDir(dir);
      return { sha256, loOid: null };
    },
    async *read(blob: BlobRef, range) {
      const stream = createReadStream(blobPath(blob.sha256), range ? { start: range.start, end: Math.max(range.start, range.end) - 1, highWaterMark: 64 * 1024 } : { highWaterMark: 64 * 1024 });
      if (range && range.end <= range.start) {
        stream.destroy();
        return;
      }
      for await (const chunk of stream) yield chunk as Buffer;
    },
    async remove(blob) {
      await fs.rm(blobPath(blob.sha256), { force: true });
    },
    async *orphans(known) {
      let fans: string[];
      try {
        fans = await fs.readdir(blobsDir());
      } catch {
        return;
      }
      for (const fan of fans) {
        for (const name of await fs.readdir(path.join(blobsDir(), fan)).catch(() => [] as string[])) {
          if (SHA.test(name) && !(await known(name))) yield { sha256: name, loOid: null };
        }
      }
    },
  };
}
