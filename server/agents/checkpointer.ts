import 'server-only';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { getDb } from '@/server/db';
import { checkpointDbPath } from '@/server/db/paths';
import { appPgPool } from '@/server/db/pg-pool';
import { cacheStatements } from '@/server/db/statement-cache';
import { migrateLibraryTables } from './checkpoint/migrate';
import { prunePgThread } from './checkpoint/pg-prune';
import { PgThreadSaver } from './checkpoint/pg-saver';
import { pgCheckpointSide } from './checkpoint/pg-side';
import { pruneThread, vacuumStep } from './checkpoint/prune';
import { ThreadSaver } from './checkpoint/saver';
import { CHECKPOINT_SCHEMA } from './checkpoint/side-tables';
import { flushJournal } from './checkpoint/step-journal';
import { conversationHasActiveRun } from './conversation-lock';
import { runEvents } from './run-events';

/** The process's checkpointer: ThreadSaver on checkpoints.db (SQLite), PgThreadSaver on the app's database (Postgres). */
export type Checkpointer = ThreadSaver | PgThreadSaver;

type SaverState = { saver: ThreadSaver; path: string } | { saver: PgThreadSaver; path?: undefined };

// Route bundles and instrumentation may load separate copies of this module: one saver per process on globalThis.
// Copies also mean separate classes: savers are told apart by their `engine`, never by instanceof. (Tests and the
// conversation benchmark install the library's SqliteSaver here, with a `db` and no `engine`: it counts as SQLite.)
const g = globalThis as unknown as { __ensembleCheckpointer?: SaverState; __ensembleCheckpointMaintenance?: boolean };

/**
 * The process's one LangGraph checkpointer (ADR 013, ADR 033 §7).
 * - SQLite: conversation threads, run events and compactions live in DATA_DIR/checkpoints.db. The first open in a
 *   process converts a data directory written by the library saver, before anything reads a thread.
 * - Postgres (DATABASE_URL): the same, in the `langgraph` schema of the app's database, over the app's pool; no
 *   checkpoints.db. The tables are created on first use (the saver's setup, under an advisory lock, so processes
 *   starting together create them once): start-up needs no call of its own.
 */
export function getCheckpointer(): Checkpointer {
  const pool = appPgPool();
  const current = g.__ensembleCheckpointer;
  if (pool) {
    if (current?.saver.engine === 'postgres' && current.saver.pool === pool) return current.saver;
    closeCheckpointer();
    const saver = new PgThreadSaver(pool, { schema: CHECKPOINT_SCHEMA, side: pgCheckpointSide });
    g.__ensembleCheckpointer = { saver };
    watchSettledRuns();
    return saver;
  }
  const file = checkpointDbPath();
  if (current?.path === file) return current.saver;
  closeCheckpointer();
  const db = new Database(file);
  // Only takes effect on a new file (before WAL mode and the first table); an existing one switches at migration.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL'); // acknowledged checkpoints survive an OS crash too (ADR 005, "What is durable")
  db.pragma('busy_timeout = 5000');
  cacheStatements(db);
  const migrated = migrateLibraryTables(db);
  if (migrated) console.log(`[checkpoints] converted ${migrated.threads} threads (${migrated.checkpoints} checkpoints, ${migrated.messages} messages) to one row per message`);
  const saver = new ThreadSaver(db);
  g.__ensembleCheckpointer = { saver, path: file };
  watchSettledRuns();
  return saver;
}

/**
 * Forget the checkpointer (shutdown, tests); the next getCheckpointer() opens a new one like a new process. SQLite:
 * closes checkpoints.db. Postgres: the pool is the app's, closed with it (closeDb).
 */
export function closeCheckpointer(): void {
  const state = g.__ensembleCheckpointer;
  g.__ensembleCheckpointer = undefined;
  if (state && state.saver.engine !== 'postgres' && state.saver.db.open) state.saver.db.close();
}

/**
 * Read the checkpoint side's tables (run events, compactions) on the process's engine: `sqlite` gets checkpoints.db
 * (synchronous statements), `postgres` the saver once its tables exist (its pool, tables in its schema).
 */
export async function readCheckpointStore<T>(sqlite: (db: Database.Database) => T, postgres: (saver: PgThreadSaver) => Promise<T>): Promise<T> {
  const saver = getCheckpointer();
  if (saver.engine !== 'postgres') return sqlite(saver.db);
  await saver.ready();
  return postgres(saver);
}

/** What identifies the checkpoint store for per-store caches: the SQLite database, or the Postgres saver. */
export function checkpointStoreKey(saver: Checkpointer = getCheckpointer()): object {
  return saver.engine !== 'postgres' ? saver.db : saver;
}

/** Write what the thread's step journal still holds now, in a transaction of its own (outside any graph step). */
export async function flushStepJournal(threadId: string): Promise<void> {
  const saver = getCheckpointer();
  if (saver.engine === 'postgres') await saver.flushStep(threadId);
  else if (flushJournal(threadId, saver.db, saver.fsync)) await saver.fsync.durable();
}

/**
 * Trim a conversation's thread once its run has settled and no other run is pending or running on it: keep the
 * newest checkpoint, drop the superseded ones (SQLite: and hand a few free pages back). Deferred to its own
 * macrotask so it never runs inside finishRun's caller; any failure only costs space.
 */
export async function maintainSettledThread(conversationId: string): Promise<void> {
  const state = g.__ensembleCheckpointer;
  if (!state || !isOpen(state)) return;
  if (await conversationHasActiveRun(getDb(), conversationId)) return;
  // Again: it may have closed while the run rows were read.
  if (!isOpen(state)) return;
  if (state.saver.engine === 'postgres') {
    await prunePgThread(state.saver, conversationId);
    return;
  }
  pruneThread(state.saver, conversationId);
  vacuumStep(state.saver);
}

/** Closed, or its data directory (or database) is gone (a test's teardown): nothing to trim, nothing to reopen. */
function isOpen(state: SaverState): boolean {
  if (state.saver.engine === 'postgres') return !state.saver.pool.ending && !state.saver.pool.ended;
  return state.saver.db.open && fs.existsSync(state.path!);
}

function watchSettledRuns(): void {
  if (g.__ensembleCheckpointMaintenance) return;
  g.__ensembleCheckpointMaintenance = true;
  runEvents().on('run:finished', ({ conversationId, remote }) => {
    // A run that finished in another process (relayed by the push bridge): that process prunes its thread.
    if (remote) return;
    setImmediate(() => {
      // Fire and forget: pruning is housekeeping, and a failure only costs space.
      void maintainSettledThread(conversationId).catch((err) =>
        console.error(`[checkpoints] could not prune the thread of conversation ${conversationId}`, err),
      );
    });
  });
}
