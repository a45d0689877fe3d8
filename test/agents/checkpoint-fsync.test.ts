// test:pg skip: checkpoints.db's shared fsync (SQLite's synchronous modes); Postgres commits each step on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { pruneThread } from '@/server/agents/checkpoint/prune';
import { ThreadSaver } from '@/server/agents/checkpoint/saver';
import { flushJournal, journal } from '@/server/agents/checkpoint/step-journal';

// ADR 035: checkpoints.db's step commits share one fsync. Each put and putWrites is still a transaction of its own,
// committed at once (a process crash keeps it); none is answered before a FULL commit has put it on disk, and the
// commits of one loop turn share that fsync.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-fsync-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A saver on a WAL file at synchronous=FULL, as server/agents/checkpointer.ts opens it. */
function fileSaver(label: string) {
  const db = new Database(path.join(dir, `${label}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const saver = new ThreadSaver(db);
  // Each transaction's synchronous mode, read inside it; and the fsync commits, counted by their row.
  const modes: number[] = [];
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) =>
    transaction((...args: unknown[]) => {
      modes.push(db.pragma('synchronous', { simple: true }) as number);
      return fn(...args);
    })) as Database.Database['transaction'];
  const fsyncs = () => (db.prepare('SELECT n FROM thread_fsync').get() as { n: number } | undefined)?.n ?? 0;
  return { db, saver, modes, fsyncs };
}

let step = 0;
function checkpoint(messages: unknown[]): Checkpoint {
  const c = emptyCheckpoint();
  c.id = `00000000-0000-6000-8000-${String(++step).padStart(12, '0')}`;
  c.channel_values = { messages };
  return c;
}
const config = (thread: string) => ({ configurable: { thread_id: thread, checkpoint_ns: '' } });

describe('checkpoints.db: step commits share one fsync', () => {
  it('puts of one loop turn commit one by one without an fsync of their own, and all are answered after one shared FULL commit', async () => {
    const { db, saver, modes, fsyncs } = fileSaver('shared');
    const threads = ['ascii thread', '漢字のスレッド', '🦊 thread', 'four', 'five'];
    const answeredAt: number[] = [];
    await Promise.all(
      threads.map(async (thread) => {
        await saver.put(config(thread), checkpoint([new HumanMessage({ id: `h-${thread}`, content: thread })]), { source: 'input', step: -1, parents: {} }, {});
        answeredAt.push(fsyncs());
      }),
    );
    // Five transactions, each committed at synchronous=NORMAL (1), then one FULL commit for all five.
    expect(modes).toEqual([1, 1, 1, 1, 1]);
    expect(fsyncs()).toBe(1);
    // What must not happen: a put answered before the fsync that covers it.
    expect(answeredAt).toEqual([1, 1, 1, 1, 1]);
    // The connection is back at FULL for everyone else (the vacuum, the migration, any other caller).
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    // Each is there, read by a fresh connection (another process).
    const fresh = new ThreadSaver(new Database(path.join(dir, 'shared.db')));
    for (const thread of threads) expect((await fresh.getTuple(config(thread)))?.checkpoint.channel_values.messages).toHaveLength(1);
  });

  it('a step’s writes and its next checkpoint, asked for in later turns, each get their own fsync: one per turn, never one per transaction', async () => {
    const { saver, modes, fsyncs } = fileSaver('turns');
    const first = await saver.put(config('t'), checkpoint([new HumanMessage({ id: 'h', content: 'hi' })]), { source: 'input', step: -1, parents: {} }, {});
    await saver.putWrites(first, [['messages', [new AIMessage({ id: 'a', content: 'hello' })]]], 'task-1');
    await saver.put(first, checkpoint([new HumanMessage({ id: 'h', content: 'hi' }), new AIMessage({ id: 'a', content: 'hello' })]), { source: 'loop', step: 0, parents: {} }, {});
    expect(modes).toEqual([1, 1, 1]);
    expect(fsyncs()).toBe(3);
    expect((await saver.getTuple(config('t')))?.checkpoint.channel_values.messages).toHaveLength(2);
  });

  it('a failed fsync rejects every put of its turn, though their commits stand, and the next turn syncs again', async () => {
    const { db, saver, fsyncs } = fileSaver('failing');
    // The shared commit fails as a full disk would make it fail: its table is gone.
    db.exec('DROP TABLE thread_fsync');
    const outcomes = await Promise.allSettled(
      ['one', 'two'].map((thread) => saver.put(config(thread), checkpoint([new HumanMessage({ id: `h-${thread}`, content: thread })]), { source: 'input', step: -1, parents: {} }, {})),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    // Never acknowledged, but committed: what a caller whose answer was lost finds, and recovery reads it as such.
    expect((await saver.getTuple(config('one')))?.checkpoint.channel_values.messages).toHaveLength(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    db.exec(`CREATE TABLE thread_fsync (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`);
    await saver.put(config('three'), checkpoint([new HumanMessage({ id: 'h-3', content: 'three' })]), { source: 'input', step: -1, parents: {} }, {});
    expect(fsyncs()).toBe(1);
  });

  it('pruning commits without waiting for an fsync (housekeeping), and leaves the connection at FULL', async () => {
    const { db, saver, modes, fsyncs } = fileSaver('prune');
    const first = await saver.put(config('p'), checkpoint([new HumanMessage({ id: 'h1', content: 'one' })]), { source: 'input', step: -1, parents: {} }, {});
    await saver.put(first, checkpoint([new HumanMessage({ id: 'h1', content: 'one' }), new AIMessage({ id: 'a1', content: 'two' })]), { source: 'loop', step: 0, parents: {} }, {});
    const before = fsyncs();
    expect(pruneThread(saver, 'p').checkpoints).toBe(1);
    expect(modes.at(-1)).toBe(1);
    expect(fsyncs()).toBe(before);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('a run’s last events, written after its last step, commit the same way: the caller waits for the shared fsync', async () => {
    const { db, saver, modes, fsyncs } = fileSaver('journal');
    expect(flushJournal('quiet', db, saver.fsync)).toBe(false);
    expect(modes).toEqual([]);
    const event = { runId: 'run-1', threadId: 'j', type: 'run.finished', at: 1, data: JSON.stringify({ note: '終わり 🏁' }) };
    journal('j', { kind: 'events', runId: 'run-1', threadId: 'j', events: [event] });
    expect(flushJournal('j', db, saver.fsync)).toBe(true);
    expect(modes).toEqual([1]);
    expect(fsyncs()).toBe(0);
    await saver.fsync.durable();
    expect(fsyncs()).toBe(1);
    expect(db.prepare('SELECT type, data FROM run_events WHERE run_id = ?').all('run-1')).toEqual([{ type: 'run.finished', data: event.data }]);
  });
});
