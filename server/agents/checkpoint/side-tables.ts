import 'server-only';
import type pg from 'pg';

/** The Postgres schema of the checkpoint side: the library's tables, thread_messages and the tables below. */
export const CHECKPOINT_SCHEMA = 'langgraph';

/**
 * run_events and thread_compactions on Postgres (ADR 033 §7), the twins of schema.ts's SQLite tables: same columns,
 * same keys. Texts that hold JSON (`data`, `removed`) are `text`, written as JSON.stringify wrote them (a NUL is the
 * escape `\u0000` there, which `text` accepts); `summary` is model output and may hold a raw NUL, which `text`
 * refuses, so it is stored as a JSON string (`json` keeps the escape as written). Epoch milliseconds are `bigint`.
 * Created by the checkpointer's setup, under its advisory lock (pg-saver.ts).
 */
export const sideTablesSql = (schema = CHECKPOINT_SCHEMA): string[] => [
  `CREATE TABLE IF NOT EXISTS "${schema}".run_events (
    run_id text NOT NULL,
    seq integer NOT NULL,
    thread_id text NOT NULL,
    type text NOT NULL,
    at bigint NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (run_id, seq)
  )`,
  `CREATE INDEX IF NOT EXISTS run_events_thread_idx ON "${schema}".run_events (thread_id)`,
  `CREATE TABLE IF NOT EXISTS "${schema}".thread_compactions (
    thread_id text NOT NULL,
    seq integer NOT NULL,
    run_id text NOT NULL,
    through_message_id text NOT NULL,
    summary_message_id text NOT NULL,
    summary json NOT NULL,
    removed text NOT NULL,
    tokens_before integer NOT NULL,
    tokens_after integer NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (thread_id, seq)
  )`,
];

export async function createSideTables(client: pg.ClientBase, schema = CHECKPOINT_SCHEMA): Promise<void> {
  for (const sql of sideTablesSql(schema)) await client.query(sql);
}

/** A thread's rows in the side tables, deleted with the thread. */
export async function deleteSideRows(client: pg.ClientBase, threadId: string, schema = CHECKPOINT_SCHEMA): Promise<void> {
  await client.query(`DELETE FROM "${schema}".run_events WHERE thread_id = $1`, [threadId]);
  await client.query(`DELETE FROM "${schema}".thread_compactions WHERE thread_id = $1`, [threadId]);
}
