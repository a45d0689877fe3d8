/**
 * The crash test's reader of SQLite files (the app database and checkpoints.db), with a driver of its own,
 * independently of server/db, hence the SQLite-only calls the lint rule keeps out of app code.
 */
/* eslint-disable no-restricted-syntax -- an independent reader of the SQLite files (see above), not app code */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { JOB_COLUMNS, RUN_COLUMNS, type Facts, type JobRow, type RunRow } from './facts';

/** Open a database read-only; a WAL file left by a killed server needs a writable handle to be replayed. */
function openReadOnly(file: string): Database.Database {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('select 1').get();
    return db;
  } catch {
    const db = new Database(file, { fileMustExist: true });
    db.pragma('query_only = ON');
    return db;
  }
}

export type ThreadReader = { messages(threadId: string): Promise<BaseMessage[]>; close(): void };

/**
 * Threads read straight from the storage format of ADR 013 (the newest checkpoint lists message positions; each
 * message is one row), independently of the server's saver. With several files (one per process, while Postgres
 * deployments still keep checkpoints per data directory) a thread is read from the file with its newest checkpoint
 * (checkpoint ids are time-ordered).
 */
export function sqliteThreads(files: string[]): ThreadReader {
  const dbs = files.filter((f) => fs.existsSync(f)).map((f) => new Database(f, { fileMustExist: true }));
  const serde = new JsonPlusSerializer();
  return {
    async messages(threadId) {
      let newest: { db: Database.Database; id: string; messages: string | null } | undefined;
      for (const db of dbs) {
        const row = db
          .prepare(`SELECT checkpoint_id AS id, messages FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`)
          .get(threadId) as { id: string; messages: string | null } | undefined;
        if (row && (!newest || row.id > newest.id)) newest = { db, ...row };
      }
      if (!newest?.messages) return [];
      const read = newest.db.prepare(`SELECT type, value FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = '' AND position = ?`);
      const out: BaseMessage[] = [];
      for (const [first, last] of JSON.parse(newest.messages) as Array<[number, number]>) {
        for (let p = first; p <= last; p++) {
          const m = read.get(threadId, p) as { type: string; value: Buffer } | undefined;
          if (!m) throw new Error(`thread ${threadId}: message position ${p} is listed but not stored`);
          out.push((await serde.loadsTyped(m.type, m.value)) as BaseMessage);
        }
      }
      return out;
    },
    close() {
      for (const db of dbs) db.close();
    },
  };
}

/** The SQLite deployment: DATA_DIR/ensemble.db and DATA_DIR/checkpoints.db of the stopped server. */
export function sqliteFacts(dataDir: string): Facts {
  const db = openReadOnly(path.join(dataDir, 'ensemble.db'));
  const checkpoints = path.join(dataDir, 'checkpoints.db');
  if (!fs.existsSync(checkpoints)) throw new Error(`no ${checkpoints}`);
  const threads = sqliteThreads([checkpoints]);
  try {
    return {
      jobs: db.prepare(`select ${JOB_COLUMNS} from jobs order by seq`).all() as JobRow[],
      runs: db.prepare(`select ${RUN_COLUMNS} from runs`).all() as RunRow[],
      messages: (threadId) => threads.messages(threadId),
      close: async () => threads.close(),
    };
  } finally {
    db.close();
  }
}
