import 'server-only';
import type pg from 'pg';
import { activeEngine } from './active-engine';
import { databaseEngine } from './engine';

/**
 * The app's Postgres pool, for code that must speak to the driver itself: the LangGraph checkpointer takes a
 * `pg.Pool` (server/agents/checkpointer.ts). Undefined on SQLite. The pool answers before the app's migrations have
 * run; callers that read the app's tables wait for `openDatabase()` as everyone else does.
 */
export function appPgPool(): pg.Pool | undefined {
  if (databaseEngine() !== 'postgres') return undefined;
  const engine = activeEngine();
  return engine.kind === 'postgres' ? engine.pg.pool : undefined;
}
