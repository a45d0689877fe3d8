import 'server-only';

// Route bundles and instrumentation may load separate copies of this module: one lock table per process.
const g = globalThis as unknown as { __ensembleFileLocks?: Map<string, Promise<void>> };
const locks = (g.__ensembleFileLocks ??= new Map());

/**
 * Run fn while no other fn for the same content hash runs in this process. Keeping content and writing its row, and
 * the sweep's check-then-remove, hold it: otherwise the sweep could remove bytes an upload just put back in place
 * and is about to name in a row. (One process per local store: a Postgres cluster's content is transactional.)
 */
export async function withContentLock<T>(sha256: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(sha256) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => mine);
  locks.set(sha256, chained);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(sha256) === chained) locks.delete(sha256);
  }
}
