import 'server-only';
import type { RunEventData } from '@/lib/types/run-events';
import { flushStepJournal, readCheckpointStore } from '../checkpointer';
import type { EventRow } from '../checkpoint/journal-write';
import { prepared } from '../checkpoint/sqlite-statements';
import { journal } from '../checkpoint/step-journal';
import { runEventCaptureEnabled } from './capture-switch';

export { sqliteEventStatements as runEventStatements } from '../checkpoint/journal-write';

/**
 * The two ways a run event is written (table run_events beside the checkpoints: checkpoints.db on SQLite, the
 * `langgraph` schema on Postgres; lib/types/run-events.ts):
 * - `journalRunEvent`: from inside a graph step (a model call, a tool result, a compaction), and run.started/resume
 *   just before the first step. Queued on the step journal and saved with the step (checkpoint/step-journal.ts).
 * - `writeRunEvent`: outside any step, when no step follows: written now, after anything the thread still has
 *   queued, so `seq` keeps the order things happened in (run.finished uses the same order, run-lifecycle.ts).
 * `seq` is assigned inside the writing transaction (the run's highest + 1); a run has one writer at a time (its
 * conversation's lock; on Postgres also the thread's transaction lock), so the numbers are dense and ordered.
 * Observation never breaks the run it observes: an event that can't be written is logged and skipped.
 */
export function journalRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): void {
  if (!runEventCaptureEnabled()) return;
  let row: EventRow;
  try {
    row = eventRow(runId, threadId, data, at);
  } catch (err) {
    // An event that can't even be serialized is skipped like one that can't be written.
    console.error(`[run-events] could not record an event of run ${runId}`, err);
    return;
  }
  journal(threadId, { kind: 'events', runId, threadId, events: [row] });
}

export async function writeRunEvent(runId: string, threadId: string, data: RunEventData, at = Date.now()): Promise<void> {
  if (!runEventCaptureEnabled()) return;
  journalRunEvent(runId, threadId, data, at);
  await flushStepJournal(threadId);
}

/** An event as stored: its type in a column, the rest as JSON text. */
export function eventRow(runId: string, threadId: string, data: RunEventData, at = Date.now()): EventRow {
  const { type, ...rest } = data;
  return { runId, threadId, type, at, data: JSON.stringify(rest) };
}

export type StoredEvent = { seq: number; type: RunEventData['type']; at: number; data: string };

/** A run's stored events with seq > after, in seq order, at most `limit`. */
export async function runEventRows(runId: string, after: number, limit: number): Promise<StoredEvent[]> {
  return readCheckpointStore(
    (db) => prepared(db, `SELECT seq, type, at, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`).all(runId, after, limit) as StoredEvent[],
    async (saver) =>
      (
        await saver.pool.query<StoredEvent>(`SELECT seq, type, at, data FROM "${saver.schema}".run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
          runId,
          after,
          limit,
        ])
      ).rows,
  );
}

/** A run's highest event seq (0 before its first event). */
export async function latestRunEventSeq(runId: string): Promise<number> {
  return readCheckpointStore(
    (db) => (prepared(db, `SELECT coalesce(max(seq), 0) AS seq FROM run_events WHERE run_id = ?`).get(runId) as { seq: number }).seq,
    async (saver) => (await saver.pool.query<{ seq: number }>(`SELECT coalesce(max(seq), 0) AS seq FROM "${saver.schema}".run_events WHERE run_id = $1`, [runId])).rows[0]!.seq,
  );
}
