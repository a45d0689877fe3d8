import 'server-only';
import { activeEngine } from '@/server/db/active-engine';
import { localFileStore } from './local-store';
import type { FileStore } from './file-store-types';
import { pgFileStore } from './pg-store';

/** The store's types live apart so the two stores need not import this module, which imports them. */
export type { BlobRef, FileStore } from './file-store-types';

// Tests only: a store wrapped to interleave another process's work between keep and the row (test-pg/file-store).
const g = globalThis as unknown as { __ensembleFileStoreOverride?: FileStore };
export function overrideFileStore(store: FileStore | undefined): void {
  g.__ensembleFileStoreOverride = store;
}

/**
 * The store for this process: with DATABASE_URL, Postgres large objects, which every process on the database shares
 * (ADR 058); otherwise the local disk under DATA_DIR. Uploads are staged on the local disk either way (ingest.ts).
 */
export function fileStore(): FileStore {
  if (g.__ensembleFileStoreOverride) return g.__ensembleFileStoreOverride;
  const engine = activeEngine();
  return engine.kind === 'postgres' ? pgFileStore(engine.pg.pool) : localFileStore();
}
