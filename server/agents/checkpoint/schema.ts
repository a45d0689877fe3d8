import 'server-only';
import type Database from 'better-sqlite3';

/** Compaction records (server/agents/compaction/store.ts): what the model receives instead of a thread's older messages. */
export const COMPACTIONS_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS thread_compactions (
  thread_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  through_message_id TEXT NOT NULL,
  summary_message_id TEXT NOT NULL,
  summary TEXT NOT NULL,
  removed TEXT NOT NULL,
  tokens_before INTEGER NOT NULL,
  tokens_after INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, seq)
);
`;

/**
 * The tables of checkpoints.db (ADR 013). Messages are stored once, as rows numbered per thread; a checkpoint row
 * holds every other channel as usual and, for the messages channel, the list of positions it contains. Plain
 * tables and composite keys, so the same schema works on Postgres (BYTEA for BLOB, TEXT/JSONB for `messages`).
 * Checkpoints and writes are few per thread once pruned, so they live in their key's b-tree (WITHOUT ROWID: no
 * second index); messages can be large, so they keep a rowid table, where a row rarely spills to overflow pages.
 */
export const CHECKPOINT_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS thread_messages (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  position INTEGER NOT NULL,
  message_id TEXT,
  type TEXT NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, position)
);
CREATE TABLE IF NOT EXISTS thread_checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  type TEXT NOT NULL,
  checkpoint BLOB NOT NULL,
  metadata BLOB NOT NULL,
  messages TEXT,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS thread_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  task_path TEXT NOT NULL DEFAULT '',
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS run_events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  thread_id TEXT NOT NULL,
  type TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS run_events_thread_idx ON run_events (thread_id);
${COMPACTIONS_TABLE_SQL}`;

/** True when the file holds the tables of @langchain/langgraph-checkpoint-sqlite (a data directory from before ADR 013). */
export function hasLibraryTables(db: Database.Database): boolean {
  const row = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')`).get() as { n: number };
  return row.n > 0;
}

/**
 * Create the tables. A new file is switched to incremental auto-vacuum first (it can only be chosen before the
 * first table exists, or by a full VACUUM), so pruning can hand pages back to the file system in small steps.
 */
export function createCheckpointTables(db: Database.Database): void {
  const empty = (db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number }).n === 0;
  if (empty) db.pragma('auto_vacuum = INCREMENTAL');
  db.exec(CHECKPOINT_TABLES_SQL);
}
