import 'server-only';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { getDb } from '@/server/db';
import { checkpointDbPath } from '@/server/db/paths';
import { migrateLibraryTables } from './checkpoint/migrate';
import { pruneThread, vacuumStep } from './checkpoint/prune';
import { conversationHasActiveRun } from './conversation-lock';
import { ThreadSaver } from './checkpoint/saver';
import { runEvents } from './run-events';

type SaverState = { saver: ThreadSaver; path: string };

// Route bundles and instrumentation may load separate copies of this module: one saver per process on globalThis.
const g = globalThis as unknown as { __ensembleCheckpointer?: SaverState; __ensembleCheckpointMaintenance?: boolean };

/**
 * The process's one LangGraph checkpointer (conversation threads live in checkpoints.db, ADR 013). The first open
 * in a process converts a data directory written by the library saver, before anything reads a thread.
 */
export function getCheckpointer(): ThreadSaver {
  const file = checkpointDbPath();
  if (!g.__ensembleCheckpointer || g.__ensembleCheckpointer.path !== file) {
    closeCheckpointer();
    const db = new Database(file);
    // Only takes effect on a new file (before WAL mode and the first table); an existing one switches at migration.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL'); // acknowledged checkpoints survive an OS crash too (docs/architecture.md, Durability)
    db.pragma('busy_timeout = 5000');
    const migrated = migrateLibraryTables(db);
    if (migrated) console.log(`[checkpoints] converted ${migrated.threads} threads (${migrated.checkpoints} checkpoints, ${migrated.messages} messages) to one row per message`);
    g.__ensembleCheckpointer = { saver: new ThreadSaver(db), path: file };
    watchSettledRuns();
  }
  return g.__ensembleCheckpointer.saver;
}

/** Close the checkpoint database (shutdown, tests); the next getCheckpointer() reopens it like a new process. */
export function closeCheckpointer(): void {
  const state = g.__ensembleCheckpointer;
  g.__ensembleCheckpointer = undefined;
  if (state?.saver.db.open) state.saver.db.close();
}

/**
 * Trim a conversation's thread once its run has settled and no other run is pending or running on it: keep the
 * newest checkpoint, drop the superseded ones, hand a few free pages back. Deferred to its own macrotask so it
 * never runs inside finishRun's caller; any failure only costs space.
 */
export async function maintainSettledThread(conversationId: string): Promise<void> {
  const state = g.__ensembleCheckpointer;
  // Closed, or its data directory is gone (a test's teardown): nothing to trim, and no database to reopen.
  if (!state || !state.saver.db.open || !fs.existsSync(state.path)) return;
  if (await conversationHasActiveRun(getDb(), conversationId)) return;
  // Again: it may have closed while the run rows were read.
  if (!state.saver.db.open || !fs.existsSync(state.path)) return;
  pruneThread(state.saver, conversationId);
  vacuumStep(state.saver);
}

function watchSettledRuns(): void {
  if (g.__ensembleCheckpointMaintenance) return;
  g.__ensembleCheckpointMaintenance = true;
  runEvents().on('run:finished', ({ conversationId }) => {
    setImmediate(() => {
      // Fire and forget: pruning is housekeeping, and a failure only costs space.
      void maintainSettledThread(conversationId).catch((err) =>
        console.error(`[checkpoints] could not prune the thread of conversation ${conversationId}`, err),
      );
    });
  });
}
