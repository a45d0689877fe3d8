import 'server-only';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { CHECKPOINT_SCHEMA } from './side-tables';

/** One run event as stored (table run_events): `data` is the event without its type, as JSON text. */
export type EventRow = { runId: string; threadId: string; type: string; at: number; data: string };

/** One compaction record as stored (table thread_compactions); `removed` is JSON text. */
export type CompactionRow = {
  threadId: string;
  runId: string;
  throughMessageId: string;
  summaryMessageId: string;
  summary: string;
  removed: string;
  tokensBefore: number;
  tokensAfter: number;
  createdAt: number;
};

/**
 * What a graph step queues on the step journal (step-journal.ts), as data, so each engine writes it in its own
 * transaction: SQLite inside the saver's synchronous transaction, Postgres on a pool client (pg-saver.ts).
 * - `events`: run events, each given the run's next seq; none of them when the run already has an event of type
 *   `unlessRecorded` (a run's end is written once, also when it is finished again after a crash). Observation never
 *   breaks the run it observes: an entry that can't be written is logged and skipped, the step's writes still saved.
 * - `compaction`: a compaction record; `written(store)` runs once the row is written (`store`: the checkpoint
 *   store's identity, for per-store caches). A failure fails the step, as any of its own writes would.
 */
export type JournalEntry =
  | { kind: 'events'; runId: string; threadId: string; events: EventRow[]; unlessRecorded?: string }
  | { kind: 'compaction'; row: CompactionRow; written: (store: object) => void };

function logSkipped(runId: string, err: unknown): void {
  console.error(`[run-events] could not record an event of run ${runId}`, err);
}

const INSERT_COMPACTION_SQLITE = `INSERT INTO thread_compactions (thread_id, seq, run_id, through_message_id, summary_message_id, summary, removed, tokens_before, tokens_after, created_at)
  VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM thread_compactions WHERE thread_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)`;

type EventStatements = { insert: Database.Statement; hasType: Database.Statement };

/**
 * The run_events statements of one checkpoint database, prepared once, on first use (preparing costs more than the
 * insert, and a 50-step run writes a few hundred events). Weak by database: a reopened checkpointer gets its own.
 * Compactions have their own, so a damaged run_events table fails only the events.
 */
const eventStatements = new WeakMap<Database.Database, EventStatements>();
const compactionStatements = new WeakMap<Database.Database, Database.Statement>();

export function sqliteEventStatements(db: Database.Database): EventStatements {
  let statements = eventStatements.get(db);
  if (!statements) {
    statements = {
      insert: db.prepare(
        `INSERT INTO run_events (run_id, seq, thread_id, type, at, data)
         VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, ?, ?, ?)`,
      ),
      hasType: db.prepare(`SELECT 1 FROM run_events WHERE run_id = ? AND type = ? LIMIT 1`),
    };
    eventStatements.set(db, statements);
  }
  return statements;
}

function insertCompactionSqlite(db: Database.Database): Database.Statement {
  let statement = compactionStatements.get(db);
  if (!statement) compactionStatements.set(db, (statement = db.prepare(INSERT_COMPACTION_SQLITE)));
  return statement;
}

/** SQLite: write the entries now; the caller holds a transaction on `db` (checkpoints.db). */
export function writeJournalSqlite(db: Database.Database, entries: readonly JournalEntry[]): void {
  for (const entry of entries) {
    if (entry.kind === 'compaction') {
      const r = entry.row;
      insertCompactionSqlite(db).run(r.threadId, r.threadId, r.runId, r.throughMessageId, r.summaryMessageId, r.summary, r.removed, r.tokensBefore, r.tokensAfter, r.createdAt);
      entry.written(db);
      continue;
    }
    // A failed statement does not end the SQLite transaction around it: skip the entry, keep the step.
    try {
      const sql = sqliteEventStatements(db);
      if (entry.unlessRecorded && sql.hasType.get(entry.runId, entry.unlessRecorded)) continue;
      for (const e of entry.events) {
        sql.insert.run(e.runId, e.runId, e.threadId, e.type, e.at, e.data);
        // The thread is the conversation: its open streams hear of the new event once this transaction is done.
        noteConversationChange(e.threadId, e.runId);
      }
    } catch (err) {
      logSkipped(entry.runId, err);
    }
  }
}

/**
 * Postgres: write the entries on `client`, inside the caller's transaction (which holds the thread's lock, so seq
 * numbers stay dense). A failed statement aborts a Postgres transaction, and an event that can't be written must not
 * take the step's message rows with it: the events are written under one savepoint, and only when that fails, again
 * entry by entry, each under its own, skipping (and logging) those that fail. Returns what to run after COMMIT.
 */
export async function writeJournalPg(client: pg.ClientBase, entries: readonly JournalEntry[], store: object, schema = CHECKPOINT_SCHEMA): Promise<() => void> {
  const after: Array<() => void> = [];
  const events = entries.filter((e): e is Extract<JournalEntry, { kind: 'events' }> => e.kind === 'events');
  for (const entry of entries) {
    if (entry.kind !== 'compaction') continue;
    const r = entry.row;
    await client.query(
      `INSERT INTO "${schema}".thread_compactions (thread_id, seq, run_id, through_message_id, summary_message_id, summary, removed, tokens_before, tokens_after, created_at)
       VALUES ($1, (SELECT coalesce(max(seq), 0) + 1 FROM "${schema}".thread_compactions WHERE thread_id = $1), $2, $3, $4, $5::json, $6, $7, $8, $9)`,
      [r.threadId, r.runId, r.throughMessageId, r.summaryMessageId, JSON.stringify(r.summary), r.removed, r.tokensBefore, r.tokensAfter, r.createdAt],
    );
    after.push(() => entry.written(store));
  }
  if (events.length && (await underSavepoint(client, () => insertEvents(client, events, schema, after))) !== undefined) {
    for (const entry of events) {
      const written: Array<() => void> = [];
      const failure = await underSavepoint(client, () => insertEvents(client, [entry], schema, written));
      if (failure === undefined) after.push(...written);
      else logSkipped(entry.runId, failure.error);
    }
  }
  return () => {
    for (const callback of after) callback();
  };
}

type EventsEntry = Extract<JournalEntry, { kind: 'events' }>;

/** The entries' events, each given its run's next seq, in order: one statement for all (a step has several). */
async function insertEvents(client: pg.ClientBase, entries: readonly EventsEntry[], schema: string, after: Array<() => void>): Promise<void> {
  const rows: EventRow[] = [];
  for (const entry of entries) {
    const skip =
      entry.unlessRecorded !== undefined &&
      (await client.query(`SELECT 1 FROM "${schema}".run_events WHERE run_id = $1 AND type = $2 LIMIT 1`, [entry.runId, entry.unlessRecorded])).rowCount! > 0;
    if (!skip) rows.push(...entry.events);
  }
  if (!rows.length) return;
  await client.query(
    `INSERT INTO "${schema}".run_events (run_id, seq, thread_id, type, at, data)
     SELECT u.run_id, coalesce((SELECT max(r.seq) FROM "${schema}".run_events r WHERE r.run_id = u.run_id), 0) + row_number() OVER (PARTITION BY u.run_id ORDER BY u.ord),
            u.thread_id, u.type, u.at, u.data
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY AS u(run_id, thread_id, type, at, data, ord)
     ORDER BY u.ord`,
    [rows.map((e) => e.runId), rows.map((e) => e.threadId), rows.map((e) => e.type), rows.map((e) => e.at), rows.map((e) => e.data)],
  );
  // The thread is the conversation: its open streams hear of the new events once this transaction is done.
  for (const e of rows) after.push(() => noteConversationChange(e.threadId, e.runId));
}

/** fn under a savepoint: undefined when it succeeded; its error (its work undone) when it failed. */
async function underSavepoint(client: pg.ClientBase, fn: () => Promise<void>): Promise<{ error: unknown } | undefined> {
  await client.query('SAVEPOINT journal_entries');
  try {
    await fn();
    await client.query('RELEASE SAVEPOINT journal_entries');
    return undefined;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT journal_entries');
    return { error };
  }
}
