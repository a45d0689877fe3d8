// test:pg skip: the fsync of SQLite's write-ahead log (ADR 036); Postgres makes its own commits durable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { WalFsync } from '@/server/db/wal-fsync';

// server/db/wal-fsync.ts: commits made at synchronous=NORMAL are acknowledged only after an fsync of the log that
// began after them, one fsync at a time, shared by everyone who asks while one runs; a failed fsync is final.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-wal-fsync-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A SyncFile whose calls wait until the test lets each one finish (or fail). */
function heldSync() {
  const calls: Array<{ file: string; finish: () => void; fail: (error: Error) => void }> = [];
  let arrived: (() => void) | undefined;
  const sync = (file: string) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ file, finish: resolve, fail: reject });
      arrived?.();
    });
  /** The next call, once it has been made (bounded: a missing call fails the test instead of hanging it). */
  const next = async (index: number) => {
    const deadline = Date.now() + 2_000;
    while (calls.length <= index) {
      if (Date.now() > deadline) throw new Error(`fsync call ${index} never came`);
      await new Promise<void>((resolve) => {
        arrived = resolve;
        setTimeout(resolve, 50);
      });
    }
    return calls[index]!;
  };
  return { sync, calls, next };
}

/** Settles of a promise, read without waiting. */
function watch(promise: Promise<void>) {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => (state.settled = true),
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WalFsync', () => {
  it('syncs the directory once, then the log, and answers nobody before the log’s fsync has ended', async () => {
    const held = heldSync();
    const log = new WalFsync(path.join(dir, 'a.db'), held.sync);
    const first = watch(log.durable());
    const directory = await held.next(0);
    expect(directory.file).toBe(dir);
    directory.finish();
    const wal = await held.next(1);
    expect(wal.file).toBe(path.join(dir, 'a.db-wal'));
    await turn();
    expect(first.settled).toBe(false);
    wal.finish();
    await turn();
    expect(first).toEqual({ settled: true, error: undefined });
    expect(log.stats.fsyncs).toBe(1);
    // The directory is not synced again.
    const second = watch(log.durable());
    (await held.next(2)).finish();
    await turn();
    expect(held.calls.map((c) => c.file)).toEqual([dir, `${path.join(dir, 'a.db')}-wal`, `${path.join(dir, 'a.db')}-wal`]);
    expect(second.settled).toBe(true);
  });

  it('callers who ask while an fsync runs share the next one, which starts only when the running one ends', async () => {
    const held = heldSync();
    const log = new WalFsync(path.join(dir, 'b.db'), held.sync);
    const early = watch(log.durable());
    (await held.next(0)).finish(); // the directory
    const running = await held.next(1);
    // Committed after the running fsync began: its fsync may not cover them.
    const late = [watch(log.durable()), watch(log.durable()), watch(log.durable())];
    await turn();
    // What must not happen: two fsyncs at once, or a late caller answered by the fsync that began before it asked.
    expect(held.calls).toHaveLength(2);
    running.finish();
    await turn();
    expect(early.settled).toBe(true);
    expect(late.map((l) => l.settled)).toEqual([false, false, false]);
    const shared = await held.next(2);
    expect(held.calls).toHaveLength(3);
    shared.finish();
    await turn();
    expect(late.map((l) => l.settled)).toEqual([true, true, true]);
    expect(log.stats.fsyncs).toBe(2);
  });

  it('a failed fsync rejects its callers and every later one, saying to restart: a later success would prove nothing', async () => {
    const held = heldSync();
    const log = new WalFsync(path.join(dir, 'c.db'), held.sync);
    const first = log.durable();
    (await held.next(0)).finish();
    const failing = await held.next(1);
    const waiting = log.durable();
    failing.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(first).rejects.toThrow(/c\.db-wal.*EIO.*Restart/s);
    await expect(waiting).rejects.toThrow(/Restart/);
    await expect(log.durable()).rejects.toThrow(/Restart/);
    // No fsync was tried after the failure.
    expect(held.calls).toHaveLength(2);
    expect(log.stats.fsyncs).toBe(0);
  });

  it('fsyncs a real database’s log, and answers at once when the log is gone because the last connection closed', async () => {
    const file = path.join(dir, 'real.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE t (text TEXT NOT NULL); INSERT INTO t VALUES ('ascii'), ('漢字'), ('🦊')`);
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    const log = new WalFsync(file);
    await log.durable();
    expect(log.stats.fsyncs).toBe(1);
    db.close();
    // SQLite copied the log into the database file, synced it and removed the log: nothing is left to sync.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    await log.durable();
    expect(new Database(file, { readonly: true }).prepare('SELECT text FROM t').pluck().all()).toEqual(['ascii', '漢字', '🦊']);
  });

  it('a missing directory is a failure, not a success', async () => {
    const log = new WalFsync(path.join(dir, 'no such directory', 'x.db'));
    await expect(log.durable()).rejects.toThrow(/ENOENT/);
  });
});
