import 'server-only';
import { env } from '@/server/env';

export type DatabaseEngine = 'sqlite' | 'postgres';

/** Which engine this process runs on: Postgres when DATABASE_URL is set, the embedded SQLite database otherwise. */
export function databaseEngine(): DatabaseEngine {
  return env.databaseUrl ? 'postgres' : 'sqlite';
}
