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

// ADR 035, 036: checkpoints.db's step commits share the log's fsync. Each put and putWrites is still a transaction of
// its own, committed at once at synchronous=NORMAL (a process crash keeps it); none is answered before an fsync of
// the log that began after it has ended, made off the event loop, one at a time.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-fsync-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A saver on a WAL file at synchronous=FULL, as server/agents/checkpointer.ts opens it. `hold`: each fsync of the
 * log waits until the test ends it (`fsyncs`); otherwise they are real and counted.
 */
function fileSaver(label: string, { hold = false } = {}) {
  const file = path.join(dir, `${label}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const fsyncs: Array<{ file: string; end: () => void; fail: (error: Error) => void }> = [];
  const held = (f: string) => new Promise<void>((end, fail) => fsyncs.push({ file: f, end, fail }));
  const saver = new ThreadSaver(db, undefined, hold ? held : undefined);
  // Each transaction's synchronous mode, read inside it.
  const modes: number[] = [];
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) =>
    transaction((...args: unknown[]) => {
      modes.push(db.pragma('synchronous', { simple: true }) as number);
      return fn(...args);
    })) as Database.Database['transaction'];
  /** Wait (bounded) until `count` fsyncs have been asked for. */
  const asked = (count: number) => until(() => fsyncs.length >= count, `fsync ${count} asked for`);
  return { file, db, saver, modes, fsyncs, asked };
}

async function until(condition: () => boolean, what: string) {
  for (const deadline = Date.now() + 2_000; !condition(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error(`${what}: never happened`);
  }
}

let step = 0;
function checkpoint(messages: unknown[]): Checkpoint {
  const c = emptyCheckpoint();
  c.id = `00000000-0000-6000-8000-${String(++step).padStart(12, '0')}`;
  c.channel_values = { messages };
  return c;
}
const config = (thread: string) => ({ configurable: { thread_id: thread, checkpoint_ns: '' } });
const source = { source: 'input', step: -1, parents: {} } as const;

describe('checkpoints.db: step commits share the log’s fsync', () => {
  it('puts commit one by one without an fsync of their own; none is answered before an fsync of the log that began after it', async () => {
    const { file, db, saver, modes, fsyncs, asked } = fileSaver('shared', { hold: true });
    const threads = ['ascii thread', '漢字のスレッド', '🦊 thread', 'four', 'five'];
    const answered: string[] = [];
    const puts = threads.map((thread) =>
      saver.put(config(thread), checkpoint([new HumanMessage({ id: `h-${thread}`, content: thread })]), source, {}).then(() => void answered.push(thread)),
    );
    // Five transactions, each committed at synchronous=NORMAL (1) on its own.
    await until(() => modes.length === 5, 'five commits');
    expect(modes).toEqual([1, 1, 1, 1, 1]);
    // The connection is back at FULL for everyone else (the vacuum, the migration, any other caller).
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    // Each is committed, read by a fresh connection (another process): a process crash would keep it.
    const fresh = new ThreadSaver(new Database(file));
    for (const thread of threads) expect((await fresh.getTuple(config(thread)))?.checkpoint.channel_values.messages).toHaveLength(1);
    // The first put's fsync began right after its commit (the directory first, once); the other four committed while
    // it ran, so they wait for the next one.
    await asked(1);
    expect(fsyncs[0]!.file).toBe(dir);
    fsyncs[0]!.end();
    await asked(2);
    expect(fsyncs[1]!.file).toBe(`${file}-wal`);
    // What must not happen: a put answered before the fsync that covers it.
    expect(answered).toEqual([]);
    fsyncs[1]!.end();
    await asked(3);
    expect(answered).toEqual([threads[0]]);
    expect(fsyncs).toHaveLength(3);
    fsyncs[2]!.end();
    await Promise.all(puts);
    expect(answered).toEqual(threads);
  });

  it('a step’s writes and its next checkpoint, asked for one after another, each get an fsync of the log', async () => {
    const { saver, modes } = fileSaver('turns');
    const before = saver.fsync.stats;
    const first = await saver.put(config('t'), checkpoint([new HumanMessage({ id: 'h', content: 'hi' })]), source, {});
    await saver.putWrites(first, [['messages', [new AIMessage({ id: 'a', content: 'hello' })]]], 'task-1');
    await saver.put(first, checkpoint([new HumanMessage({ id: 'h', content: 'hi' }), new AIMessage({ id: 'a', content: 'hello' })]), { source: 'loop', step: 0, parents: {} }, {});
    expect(modes).toEqual([1, 1, 1]);
    expect(saver.fsync.stats).toEqual({ unsynced: before.unsynced + 3, fsyncs: before.fsyncs + 3 });
    expect((await saver.getTuple(config('t')))?.checkpoint.channel_values.messages).toHaveLength(2);
  });

  it('a failed fsync rejects every put waiting for it, though their commits stand, and every later put', async () => {
    const { db, saver, fsyncs, asked } = fileSaver('failing', { hold: true });
    const put = (thread: string) => saver.put(config(thread), checkpoint([new HumanMessage({ id: `h-${thread}`, content: thread })]), source, {});
    const one = put('one');
    await asked(1);
    fsyncs[0]!.end();
    await asked(2);
    const two = put('two');
    fsyncs[1]!.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(one).rejects.toThrow(/failing\.db-wal.*EIO.*Restart/s);
    await expect(two).rejects.toThrow(/Restart/);
    // Never acknowledged, but committed: what a caller whose answer was lost finds, and recovery reads it as such.
    expect((await saver.getTuple(config('one')))?.checkpoint.channel_values.messages).toHaveLength(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    // What must not happen: a later put acknowledged by an fsync that can't vouch for the frames before it.
    await expect(put('three')).rejects.toThrow(/Restart/);
    expect(fsyncs).toHaveLength(2);
  });

  it('pruning commits without waiting for an fsync (housekeeping), and leaves the connection at FULL', async () => {
    const { db, saver, modes } = fileSaver('prune');
    const first = await saver.put(config('p'), checkpoint([new HumanMessage({ id: 'h1', content: 'one' })]), source, {});
    await saver.put(first, checkpoint([new HumanMessage({ id: 'h1', content: 'one' }), new AIMessage({ id: 'a1', content: 'two' })]), { source: 'loop', step: 0, parents: {} }, {});
    const before = saver.fsync.stats.fsyncs;
    expect(pruneThread(saver, 'p').checkpoints).toBe(1);
    expect(modes.at(-1)).toBe(1);
    expect(saver.fsync.stats.fsyncs).toBe(before);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('a run’s last events, written after its last step, commit the same way: the caller waits for the log’s fsync', async () => {
    const { db, saver, modes, fsyncs, asked } = fileSaver('journal', { hold: true });
    expect(flushJournal('quiet', db, saver.fsync)).toBe(false);
    expect(modes).toEqual([]);
    const event = { runId: 'run-1', threadId: 'j', type: 'run.finished', at: 1, data: JSON.stringify({ note: '終わり 🏁' }) };
    journal('j', { kind: 'events', runId: 'run-1', threadId: 'j', events: [event] });
    expect(flushJournal('j', db, saver.fsync)).toBe(true);
    expect(modes).toEqual([1]);
    expect(db.prepare('SELECT type, data FROM run_events WHERE run_id = ?').all('run-1')).toEqual([{ type: 'run.finished', data: event.data }]);
    let durable = false;
    const waiting = saver.fsync.durable().then(() => (durable = true));
    await asked(1);
    fsyncs[0]!.end();
    await asked(2);
    expect(durable).toBe(false);
    fsyncs[1]!.end();
    await waiting;
    expect(durable).toBe(true);
  });
});
