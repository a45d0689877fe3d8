// npm run db:migrate — apply pending migrations to the database (the server also does this on start): Postgres when
// DATABASE_URL is set (drizzle/pg, under the migration lock, ADR 033 §8), DATA_DIR/ensemble.db otherwise.
import { closeDb, databaseEngine, openDatabase } from '@/server/db';
import { appDbPath } from '@/server/db/paths';
import { shownUrl } from '@/server/db/shown-url';
import { env } from '@/server/env';

/** The database this run migrated, for the operator: the SQLite file, or the Postgres URL without its password. */
const describeDatabase = () => (databaseEngine() === 'sqlite' ? appDbPath() : shownUrl(env.databaseUrl!));

async function main(): Promise<void> {
  try {
    await openDatabase();
  } finally {
    await closeDb();
  }
  console.log(`Migrations applied: ${describeDatabase()}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
