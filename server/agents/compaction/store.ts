import 'server-only';
import type { HumanMessage } from '@langchain/core/messages';
import { checkpointStoreKey, readCheckpointStore } from '../checkpointer';
import { prepared } from '../checkpoint/sqlite-statements';
import { journal } from '../checkpoint/step-journal';
import { summaryMessage } from './summary-message';

/**
 * Compaction records (table thread_compactions beside the checkpoints: checkpoints.db, or the `langgraph` schema on
 * Postgres): each says "from the message `throughMessageId` back, the model receives `summary` instead". The thread itself keeps every message. A record is written through
 * the step journal, so it is saved in the transaction of the model step that made it (a step lost in a crash
 * loses its record and is redone: compacting again gives the same cut).
 */
export type RemovedMessage = { id: string; hash: string };

export type CompactionRecord = {
  threadId: string;
  runId: string;
  throughMessageId: string;
  summaryMessageId: string;
  summary: string;
  /** The messages this compaction took out of the model's input (the previous summary's are in its own record). */
  removed: RemovedMessage[];
  tokensBefore: number;
  tokensAfter: number;
  createdAt: number;
};

/** The newest record of a thread with its summary message (one object, so later steps can match it by identity). */
export type LatestCompaction = { record: CompactionRecord; message: HumanMessage; hint: number };

type Row = {
  thread_id: string;
  run_id: string;
  through_message_id: string;
  summary_message_id: string;
  summary: string;
  removed: string;
  tokens_before: number;
  tokens_after: number;
  created_at: number;
};

const fromRow = (row: Row): CompactionRecord => ({
  threadId: row.thread_id,
  runId: row.run_id,
  throughMessageId: row.through_message_id,
  summaryMessageId: row.summary_message_id,
  summary: row.summary,
  removed: JSON.parse(row.removed) as RemovedMessage[],
  tokensBefore: row.tokens_before,
  tokensAfter: row.tokens_after,
  createdAt: row.created_at,
});

const COLUMNS = 'thread_id, run_id, through_message_id, summary_message_id, summary, removed, tokens_before, tokens_after, created_at';
// Postgres keeps the summary as a JSON string (side-tables.ts): read its text as written and parse it here.
const PG_COLUMNS = COLUMNS.replace('summary,', 'summary::text AS summary,');

/** A thread's records, oldest first; only the newest with `newest`. */
async function readRows(threadId: string, newest: boolean): Promise<Row[]> {
  const order = newest ? 'ORDER BY seq DESC LIMIT 1' : 'ORDER BY seq';
  return readCheckpointStore(
    (db) => prepared(db, `SELECT ${COLUMNS} FROM thread_compactions WHERE thread_id = ? ${order}`).all(threadId) as Row[],
    async (saver) => {
      const { rows } = await saver.pool.query<Row>(`SELECT ${PG_COLUMNS} FROM "${saver.schema}".thread_compactions WHERE thread_id = $1 ${order}`, [threadId]);
      return rows.map((row) => ({ ...row, summary: JSON.parse(row.summary) as string }));
    },
  );
}

/**
 * The newest record per thread, per checkpoint store (a reopened store — a restart, a test's new data directory —
 * reads again). `null` remembers "none yet". Set only when a record's row is written, so the cache never holds a
 * record a rolled-back or abandoned step would have lost. On globalThis: route bundles may load their own copy of
 * this module, and a copy that cached "none" must see a record another copy's run wrote.
 */
const g = globalThis as unknown as { __ensembleLatestCompactions?: WeakMap<object, Map<string, LatestCompaction | null>> };
const latestByStore = (g.__ensembleLatestCompactions ??= new WeakMap());

function cacheOf(store: object): Map<string, LatestCompaction | null> {
  let cache = latestByStore.get(store);
  if (!cache) latestByStore.set(store, (cache = new Map()));
  return cache;
}

/** The thread's newest compaction, read from the database once per process and then kept in memory. */
export async function latestCompaction(threadId: string): Promise<LatestCompaction | null> {
  const cache = cacheOf(checkpointStoreKey());
  const cached = cache.get(threadId);
  if (cached !== undefined) return cached;
  const [row] = await readRows(threadId, true);
  const latest = row ? latestOf(fromRow(row)) : null;
  // A record written while this read was under way is newer than what it found: keep that one.
  if (!cache.has(threadId)) cache.set(threadId, latest);
  return cache.get(threadId)!;
}

export const latestOf = (record: CompactionRecord): LatestCompaction => ({ record, message: summaryMessage(record), hint: -1 });

/**
 * Queue the record on the thread's step journal: saved with the step that made it. `latest` (the record and the
 * summary message the step sent) becomes the cached newest once the row is written.
 */
export function saveCompaction(latest: LatestCompaction): void {
  const r = latest.record;
  journal(r.threadId, {
    kind: 'compaction',
    row: { ...r, removed: JSON.stringify(r.removed) },
    written: (store) => cacheOf(store).set(r.threadId, latest),
  });
}

/** Every record of a thread, oldest first (the conversation view shows each summary at its place). */
export async function compactionsOf(threadId: string): Promise<CompactionRecord[]> {
  return (await readRows(threadId, false)).map(fromRow);
}
