import 'server-only';
import type Database from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './sqlite-schema';

/**
 * A database handle as domain code sees it: typed as drizzle's SQLite database on either engine (the row types are
 * equal, test/db/schema-parity.test.ts). Domain code uses only the builder subset both dialects share and awaits
 * every query; `.get()/.all()/.run()/.values()` and `$client` are SQLite-only and stay inside server/db (lint).
 */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
