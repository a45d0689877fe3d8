import 'server-only';
import type Database from 'better-sqlite3';
import type { RunEventData } from '@/lib/types/run-events';
import { getCheckpointer } from '../checkpointer';
import { flushJournal, journal } from '../checkpoint/step-journal';

/**
 * The two ways a run event is written (table run_events in checkpoints.db, lib/types/run-events.ts):
 * - `journalRunEvent`: from inside a graph step (a model call, a tool result, a compaction). Queued on the step
 *   journal and saved in the same transaction as the step's writes, so it survives a crash exactly as far as the
 *   step does (checkpoint/step-journal.ts).
 * - `writeRunEvent`: outside any step (run.started, interrupt, resume, run.finished): written now, after anything
 *   the thread still has queued, so `seq` keeps the order things happened in.
 * `seq` is assigned inside the writing transaction (the run's highest + 1); a run has one writer at a time (its
 * conversation's lock), so the numbers are dense and ordered.
 */
export function journalRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  journal(threadId, (db) => insertEvent(db, runId, threadId, data, at));
}

export function writeRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  const db = getCheckpointer().db;
  journal(threadId, (tx) => insertEvent(tx, runId, threadId, data, at));
  flushJournal(threadId, db);
}

function insertEvent(db: Database.Database, runId: string, threadId: string, data: RunEventData, at: number): void {
  const { type, ...rest } = data;
  db.prepare(
    `INSERT INTO run_events (run_id, seq, thread_id, type, at, data)
     VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, ?, ?, ?)`,
  ).run(runId, runId, threadId, type, at, JSON.stringify(rest));
}
