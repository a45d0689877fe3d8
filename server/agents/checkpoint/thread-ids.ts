import 'server-only';
import type Database from 'better-sqlite3';
import type { PgThreadSaver } from './pg-saver';

/** Every table of the checkpoint side keyed by thread, SQLite (checkpoints.db). */
const SQLITE_THREAD_TABLES = ['thread_checkpoints', 'thread_writes', 'thread_messages', 'run_events', 'thread_compactions'];
/** The same on Postgres: the library's tables, then ours, in the checkpoint schema. */
const PG_THREAD_TABLES = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes', 'thread_messages', 'run_events', 'thread_compactions'];

/** The next `limit` thread ids after `after` (in id order) with a row anywhere in checkpoints.db. */
export function sqliteThreadIdsPage(db: Database.Database, after: string, limit: number): string[] {
  const threads = SQLITE_THREAD_TABLES.map((t) => `SELECT thread_id FROM ${t} WHERE thread_id > @after`).join(' UNION ');
  return db.prepare(`${threads} ORDER BY thread_id LIMIT @limit`).pluck().all({ after, limit }) as string[];
}

/**
 * The next `limit` thread ids after `after` (in id order) with a row anywhere in the checkpoint schema and no
 * conversation row of that id, in one statement (one snapshot): a thread row in it has its conversation in it too,
 * unless that conversation was deleted.
 */
export async function pgOrphanThreadIdsPage(saver: PgThreadSaver, after: string, limit: number): Promise<string[]> {
  const threads = PG_THREAD_TABLES.map((t) => `SELECT thread_id FROM "${saver.schema}".${t} WHERE thread_id > $1`).join(' UNION ');
  const { rows } = await saver.pool.query<{ thread_id: string }>(
    `SELECT t.thread_id FROM (${threads}) t WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE c.id = t.thread_id)
     ORDER BY t.thread_id LIMIT $2`,
    [after, limit],
  );
  return rows.map((row) => row.thread_id);
}
