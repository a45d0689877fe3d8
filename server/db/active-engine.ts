import 'server-only';
import { env } from '@/server/env';
import { databaseEngine } from './engine';
import { closePg, migratePg, openPg, type PgEngine } from './pg-engine';
import { closeSqlite, openSqlite, type SqliteEngine } from './sqlite-engine';
import { appDbPath } from './paths';

export type ActiveEngine = { kind: 'sqlite'; sqlite: SqliteEngine } | { kind: 'postgres'; pg: PgEngine; ready: Promise<void> };

// Route bundles and instrumentation can load separate copies of this module: keep the one engine on globalThis.
const g = globalThis as unknown as { __ensembleEngine?: ActiveEngine };

/**
 * The process's database, opened on first use. SQLite opens and migrates synchronously; Postgres connects lazily
 * and migrates once, asynchronously: `openDatabase()` (start-up, scripts, tests) waits for that.
 */
export function activeEngine(): ActiveEngine {
  const current = g.__ensembleEngine;
  if (databaseEngine() === 'postgres') {
    const url = env.databaseUrl!;
    if (current?.kind === 'postgres' && current.pg.url === url) return current;
    if (current) void closeEngine(current);
    const pg = openPg(url);
    const ready = migratePg(pg, env.migrationsDir);
    // Awaited by openDatabase(); without this a failed migration would also be an unhandled rejection.
    ready.catch(() => {});
    return (g.__ensembleEngine = { kind: 'postgres', pg, ready });
  }
  const file = appDbPath();
  if (current?.kind === 'sqlite' && current.sqlite.path === file) return current;
  if (current) void closeEngine(current);
  return (g.__ensembleEngine = { kind: 'sqlite', sqlite: openSqlite() });
}

export async function closeActiveEngine(): Promise<void> {
  const current = g.__ensembleEngine;
  g.__ensembleEngine = undefined;
  if (current) await closeEngine(current);
}

async function closeEngine(engine: ActiveEngine): Promise<void> {
  if (engine.kind === 'sqlite') closeSqlite(engine.sqlite);
  else await closePg(engine.pg);
}
