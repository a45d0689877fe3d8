import 'server-only';
import Database from 'better-sqlite3';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { checkpointDbPath } from '@/server/db/paths';

type SaverState = { saver: SqliteSaver; path: string };

// Route bundles and instrumentation may load separate copies of this module: one saver per process on globalThis.
const g = globalThis as unknown as { __ensembleCheckpointer?: SaverState };

/** The process's one LangGraph checkpointer (conversation threads live in checkpoints.db). */
export function getCheckpointer(): SqliteSaver {
  const file = checkpointDbPath();
  if (!g.__ensembleCheckpointer || g.__ensembleCheckpointer.path !== file) {
    closeCheckpointer();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL'); // acknowledged checkpoints survive an OS crash too (docs/architecture.md, Durability)
    db.pragma('busy_timeout = 5000');
    g.__ensembleCheckpointer = { saver: new SqliteSaver(db), path: file };
  }
  return g.__ensembleCheckpointer.saver;
}

/** Close the checkpoint database (shutdown, tests); the next getCheckpointer() reopens it like a new process. */
export function closeCheckpointer(): void {
  const state = g.__ensembleCheckpointer;
  g.__ensembleCheckpointer = undefined;
  if (state?.saver.db.open) state.saver.db.close();
}
