import 'server-only';
import type Database from 'better-sqlite3';
import type { Receipt } from '@/lib/types/receipts';
import { getCheckpointer } from '../checkpointer';

/**
 * A run's receipts ledger, read from its `step.tool` run events (checkpoints.db). Each event carries the receipt id
 * stamped when its result was recorded (stamp.ts); the event is journaled with the step that produced the result,
 * so the ledger never disagrees with the checkpoint: a step lost in a crash loses its receipts and its redo stamps
 * the same numbers again. Events recorded before receipts existed carry no id and are not part of a ledger.
 */
export function receiptsOf(runId: string): Receipt[] {
  const rows = statements(getCheckpointer().db).all(runId) as Array<{ id: string; tool: string; status: string }>;
  return rows.map((row) => ({ id: row.id, tool: row.tool, status: row.status === 'error' ? 'error' : 'ok' }));
}

const prepared = new WeakMap<Database.Database, Database.Statement>();

function statements(db: Database.Database): Database.Statement {
  let statement = prepared.get(db);
  if (!statement) {
    statement = db.prepare(
      `SELECT json_extract(data, '$.receipt') AS id, json_extract(data, '$.tool') AS tool, json_extract(data, '$.status') AS status
       FROM run_events WHERE run_id = ? AND type = 'step.tool' AND json_extract(data, '$.receipt') IS NOT NULL ORDER BY seq`,
    );
    prepared.set(db, statement);
  }
  return statement;
}
