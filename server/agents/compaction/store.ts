import 'server-only';
import type Database from 'better-sqlite3';
import type { HumanMessage } from '@langchain/core/messages';
import { getCheckpointer } from '../checkpointer';
import { journal } from '../checkpoint/step-journal';
import { summaryMessage } from './summary-message';

/**
 * Compaction records (table thread_compactions in checkpoints.db): each says "from the message `throughMessageId`
 * back, the model receives `summary` instead". The thread itself keeps every message. A record is written through
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

const prepared = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

function statements(db: Database.Database) {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = prepare(db)));
  return s;
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO thread_compactions (thread_id, seq, run_id, through_message_id, summary_message_id, summary, removed, tokens_before, tokens_after, created_at)
       VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM thread_compactions WHERE thread_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    latest: db.prepare(`SELECT * FROM thread_compactions WHERE thread_id = ? ORDER BY seq DESC LIMIT 1`),
    all: db.prepare(`SELECT * FROM thread_compactions WHERE thread_id = ? ORDER BY seq`),
  };
}

/**
 * The newest record per thread, per checkpoint database (a reopened database — a restart, a test's new data
 * directory — reads again). `null` remembers "none yet". Set only when a record's row is written, so the cache
 * never holds a record a rolled-back or abandoned step would have lost. On globalThis: route bundles may load their
 * own copy of this module, and a copy that cached "none" must see a record another copy's run wrote.
 */
const g = globalThis as unknown as { __ensembleLatestCompactions?: WeakMap<Database.Database, Map<string, LatestCompaction | null>> };
const latestByDb = (g.__ensembleLatestCompactions ??= new WeakMap());

function cacheOf(db: Database.Database): Map<string, LatestCompaction | null> {
  let cache = latestByDb.get(db);
  if (!cache) latestByDb.set(db, (cache = new Map()));
  return cache;
}

/** The thread's newest compaction, read from the database once per process and then kept in memory. */
export function latestCompaction(threadId: string): LatestCompaction | null {
  const db = getCheckpointer().db;
  const cache = cacheOf(db);
  const cached = cache.get(threadId);
  if (cached !== undefined) return cached;
  const row = statements(db).latest.get(threadId) as Row | undefined;
  const latest = row ? latestOf(fromRow(row)) : null;
  cache.set(threadId, latest);
  return latest;
}

export const latestOf = (record: CompactionRecord): LatestCompaction => ({ record, message: summaryMessage(record), hint: -1 });

/**
 * Queue the record on the thread's step journal: saved with the step that made it. `latest` (the record and the
 * summary message the step sent) becomes the cached newest once the row is written.
 */
export function saveCompaction(latest: LatestCompaction): void {
  const r = latest.record;
  journal(r.threadId, (db) => {
    statements(db).insert.run(r.threadId, r.threadId, r.runId, r.throughMessageId, r.summaryMessageId, r.summary, JSON.stringify(r.removed), r.tokensBefore, r.tokensAfter, r.createdAt);
    cacheOf(db).set(r.threadId, latest);
  });
}

/** Every record of a thread, oldest first (the conversation view shows each summary at its place). */
export function compactionsOf(threadId: string): CompactionRecord[] {
  return (statements(getCheckpointer().db).all.all(threadId) as Row[]).map(fromRow);
}
