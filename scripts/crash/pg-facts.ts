/**
 * The Postgres deployment's facts, read with node-postgres, independently of server/db: the app tables (the same
 * columns as SQLite, server/db/pg-schema.ts; timestamps come back as Dates) and the threads from
 * langgraph.thread_messages, or, before checkpoints moved to Postgres, from each process's DATA_DIR/checkpoints.db.
 */
import path from 'node:path';
import pg from 'pg';
import { JOB_COLUMNS, RUN_COLUMNS, type Facts, type JobRow, type RunRow } from './facts';
import { hasThreadMessages, pgThreadMessages } from './pg-threads';
import { sqliteThreads } from './sqlite-facts';

const TIMES = ['created_at', 'admitted_at', 'completed_at', 'finished_at'] as const;

/** Timestamps as epoch ms, like the SQLite rows. */
function withEpochTimes<T>(row: Record<string, unknown>): T {
  for (const key of TIMES) if (row[key] instanceof Date) row[key] = (row[key] as Date).getTime();
  return row as T;
}

export async function pgFacts(url: string, dataDirs: string[]): Promise<Facts> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let inPostgres = false;
  let jobs: JobRow[];
  let runs: RunRow[];
  try {
    jobs = (await client.query(`select ${JOB_COLUMNS} from jobs order by seq`)).rows.map((r) => withEpochTimes<JobRow>(r));
    const { rows: owned } = await client.query(`select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'runs' and column_name = 'process_id'`);
    runs = (await client.query(`select ${RUN_COLUMNS}${owned.length ? ', process_id' : ''} from runs`)).rows.map((r) => withEpochTimes<RunRow>(r));
    inPostgres = await hasThreadMessages(client);
  } finally {
    if (!inPostgres) await client.end();
  }
  if (inPostgres) return { jobs, runs, messages: (threadId) => pgThreadMessages(client, threadId), close: () => client.end() };
  const threads = sqliteThreads(dataDirs.map((dir) => path.join(dir, 'checkpoints.db')));
  return { jobs, runs, messages: (threadId) => threads.messages(threadId), close: async () => threads.close() };
}
