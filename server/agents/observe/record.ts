import 'server-only';
import type Database from 'better-sqlite3';
import type { RunEventData } from '@/lib/types/run-events';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { getCheckpointer } from '../checkpointer';
import { flushJournal, journal } from '../checkpoint/step-journal';
import { runEventCaptureEnabled } from './capture-switch';

/**
 * The two ways a run event is written (table run_events in checkpoints.db, lib/types/run-events.ts):
 * - `journalRunEvent`: from inside a graph step (a model call, a tool result, a compaction), and run.started/resume
 *   just before the first step. Queued on the step journal and saved in the same transaction as the step's writes,
 *   so it survives a crash exactly as far as the step does (checkpoint/step-journal.ts).
 * - `writeRunEvent`: outside any step, when no step follows: written now, after anything the thread still has
 *   queued, so `seq` keeps the order things happened in (run.finished uses the same order, run-lifecycle.ts).
 * `seq` is assigned inside the writing transaction (the run's highest + 1); a run has one writer at a time (its
 * conversation's lock), so the numbers are dense and ordered.
 */
export function journalRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  if (!runEventCaptureEnabled()) return;
  journal(threadId, (db) => recordSafely(runId, () => insertEvent(db, runId, threadId, data, at)));
}

export function writeRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  if (!runEventCaptureEnabled()) return;
  const db = getCheckpointer().db;
  journal(threadId, (tx) => recordSafely(runId, () => insertEvent(tx, runId, threadId, data, at)));
  flushJournal(threadId, db);
}

/**
 * Observation never breaks the run it observes: an event that can't be written (a damaged or full checkpoint
 * database) is logged and skipped, and the step's own writes in the same transaction are still saved. A failed
 * statement does not end the SQLite transaction around it.
 */
export function recordSafely(runId: string, write: () => void): void {
  try {
    write();
  } catch (err) {
    console.error(`[run-events] could not record an event of run ${runId}`, err);
  }
}

/** Insert one event now, inside the caller's transaction on the checkpoint database. */
export function insertEvent(db: Database.Database, runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  const { type, ...rest } = data;
  runEventStatements(db).insert.run(runId, runId, threadId, type, at, JSON.stringify(rest));
  // The thread is the conversation: its open streams hear of the new event once this transaction is done.
  noteConversationChange(threadId, runId);
}

/**
 * The run_events statements of one checkpoint database, prepared once: preparing costs more than the insert
 * itself, and a 50-step run writes a few hundred events. Weak by database, so a closed and reopened checkpointer
 * (tests, a new data directory) gets its own.
 */
const prepared = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

export function runEventStatements(db: Database.Database): ReturnType<typeof prepare> {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = prepare(db)));
  return statements;
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO run_events (run_id, seq, thread_id, type, at, data)
       VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, ?, ?, ?)`,
    ),
    page: db.prepare(`SELECT seq, type, at, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`),
    hasType: db.prepare(`SELECT 1 FROM run_events WHERE run_id = ? AND type = ? LIMIT 1`),
    // Model calls of a run: tokens as recorded (absent when the provider reported none).
    totals: db.prepare(
      `SELECT count(*) AS calls,
              coalesce(sum(json_extract(data, '$.inputTokens')), 0) AS input,
              coalesce(sum(json_extract(data, '$.outputTokens')), 0) AS output,
              count(*) FILTER (WHERE json_extract(data, '$.inputTokens') IS NULL AND json_extract(data, '$.outputTokens') IS NULL) AS unreported
       FROM run_events WHERE run_id = ? AND type = 'model.call'`,
    ),
  };
}
