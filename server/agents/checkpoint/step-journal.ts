import 'server-only';
import type Database from 'better-sqlite3';
import { writeJournalSqlite, type JournalEntry } from './journal-write';
import type { SharedFsync } from './shared-fsync';

export type { JournalEntry } from './journal-write';

/**
 * Writes that belong to a graph step (run events, compaction records) and must survive a crash as far as the step
 * does. Code running inside a step queues them here, by thread; the checkpoint saver writes them when it saves the
 * step's own writes (putWrites) or its checkpoint (put), whichever comes first.
 * - SQLite: in the same transaction, so a step whose writes were saved has its events too, and a step lost in a crash
 *   loses its events with it (it is redone and records them again): the record never disagrees with the checkpoint.
 * - Postgres: in the transaction that stores the step's new message rows, which commits just before the library's
 *   own checkpoint or writes transaction (pg-saver.ts). A crash between the two commits leaves the step's events
 *   recorded and the step redone: its events may be recorded twice, never lost (ADR 033 §7).
 *
 * One conversation has one run at a time (its lock is the active run row), so a thread's queue is that run's.
 */
const g = globalThis as unknown as { __ensembleStepJournal?: Map<string, JournalEntry[]> };
const pending = (g.__ensembleStepJournal ??= new Map());

/** Queue a write for the thread's next saved step. */
export function journal(threadId: string, entry: JournalEntry): void {
  const list = pending.get(threadId);
  if (list) list.push(entry);
  else pending.set(threadId, [entry]);
}

export const hasJournal = (threadId: string): boolean => pending.has(threadId);

/** Take the thread's queued writes (the caller writes them, in order). */
export function takeJournal(threadId: string): JournalEntry[] {
  const list = pending.get(threadId) ?? [];
  pending.delete(threadId);
  return list;
}

/** SQLite: run the thread's queued writes; the caller holds a transaction on `db` (the checkpoint database). */
export function drainJournal(threadId: string, db: Database.Database): void {
  if (!pending.has(threadId)) return;
  writeJournalSqlite(db, takeJournal(threadId));
}

/**
 * SQLite: write what is still queued for a thread in its own transaction (a run's end, outside any step), committed
 * without an fsync of its own; false when nothing was queued. The caller awaits `fsync.durable()` when it wrote.
 */
export function flushJournal(threadId: string, db: Database.Database, fsync: SharedFsync): boolean {
  if (!pending.has(threadId)) return false;
  fsync.unsynced(() => drainJournal(threadId, db));
  return true;
}

/** Drop a thread's queue without writing it (its step was abandoned and will be redone). */
export function discardJournal(threadId: string): void {
  pending.delete(threadId);
}
