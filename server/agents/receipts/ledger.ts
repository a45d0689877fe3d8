import 'server-only';
import type { Receipt } from '@/lib/types/receipts';
import { readCheckpointStore } from '../checkpointer';
import { prepared } from '../checkpoint/sqlite-statements';

type Row = { id: string; tool: string; status: string };

/**
 * A run's receipts ledger, read from its `step.tool` run events. Each event carries the receipt id stamped when its
 * result was recorded (stamp.ts); the event is journaled with the step that produced the result, and a step lost in a
 * crash is redone and stamps the same numbers again. On SQLite the events are saved in the step's own transaction,
 * so a lost step loses its events too. On Postgres they commit just before the step's checkpoint (ADR 033 §7), so a
 * crash between the two can leave a redone step's receipts recorded twice: a receipt id counts once, as its latest
 * record says (the one the checkpoint matches). Events recorded before receipts existed carry no id and are not
 * part of a ledger.
 */
export async function receiptsOf(runId: string): Promise<Receipt[]> {
  const rows = await readCheckpointStore(
    (db) =>
      prepared(
        db,
        `SELECT json_extract(data, '$.receipt') AS id, json_extract(data, '$.tool') AS tool, json_extract(data, '$.status') AS status
         FROM run_events WHERE run_id = ? AND type = 'step.tool' AND json_extract(data, '$.receipt') IS NOT NULL ORDER BY seq`,
      ).all(runId) as Row[],
    async (saver) =>
      (
        await saver.pool.query<Row>(
          `SELECT data::json ->> 'receipt' AS id, data::json ->> 'tool' AS tool, data::json ->> 'status' AS status
           FROM "${saver.schema}".run_events WHERE run_id = $1 AND type = 'step.tool' AND data::json ->> 'receipt' IS NOT NULL ORDER BY seq`,
          [runId],
        )
      ).rows,
  );
  return latestPerId(rows).map((row) => ({ id: row.id, tool: row.tool, status: row.status === 'error' ? 'error' : 'ok' }));
}

/** Each id once, at the place of its last record (a redone step's receipts come after those it replaces). */
export function latestPerId<T extends { id: string }>(rows: readonly T[]): T[] {
  const last = new Map<string, number>();
  rows.forEach((row, i) => last.set(row.id, i));
  return rows.filter((row, i) => last.get(row.id) === i);
}
