/**
 * Finish rotating the secret that encrypts managed providers' API keys (docs/decisions/043):
 *
 *   ENSEMBLE_SECRET_KEY=<new> ENSEMBLE_SECRET_KEY_PREVIOUS=<old> npm run providers:reseal
 *
 * Re-seals every key under the new secret and prints {"resealed": [slugs], "current": [...], "unreadable": [...]}
 * (never a key). Exits 1 when some key could not be opened with either secret. Uses DATA_DIR or DATABASE_URL like
 * the server; applies migrations first.
 */
import { closeDb, openDatabase } from '@/server/db';
import { resealProviderKeys } from '@/server/providers/reseal';

async function main() {
  await openDatabase();
  try {
    const report = await resealProviderKeys();
    console.log(JSON.stringify(report));
    return report.unreadable.length ? 1 : 0;
  } finally {
    await closeDb();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
