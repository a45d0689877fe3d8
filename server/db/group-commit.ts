import 'server-only';
import { TxScope, txContext } from './tx-scope';
import type { Db } from './types';

/**
 * SQLite's write transactions, one at a time in the order asked (FIFO), with group commit: the transactions
 * queued while one runs share its COMMIT. Under `synchronous=FULL` every COMMIT is an fsync that better-sqlite3 waits
 * for on the event loop; one per transaction made that wait the bound on how many jobs a process finishes per second
 * (docs/performance.md).
 *
 * What each caller still gets, unchanged: its work runs alone (no other transaction's statements in between), sees
 * every earlier transaction's writes, and is all or nothing (a SAVEPOINT of its own: a failure rolls back only its
 * work and rejects only its caller). Nobody hears "done" before the COMMIT that made their work durable: results
 * and after-commit callbacks wait for it, and a failed COMMIT (or a rollback SQLite forced) fails everyone in the
 * group — nothing was acknowledged. With nothing queued behind it, a transaction commits after one turn of the event
 * loop, so the writes that turn's other callbacks ask for join it (ADR 034).
 */
export class GroupCommitWriter {
  private readonly queue: Array<{ fn: (tx: Db) => Promise<unknown> | unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  private draining = false;
  /** Transactions run and COMMITs made since start (benchmarks print their ratio). */
  readonly stats = { transactions: 0, commits: 0 };

  constructor(
    private readonly db: Db,
    /** A group ends at this many transactions or this much time, so a steady stream still commits regularly. */
    private readonly limits = { transactions: 64, ms: 25 },
  ) {}

  run<T>(fn: (tx: Db) => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.group();
    } finally {
      this.draining = false;
    }
  }

  /** One transaction holding the queued callers' savepoints, then one COMMIT for all of them. */
  private async group(): Promise<void> {
    const client = this.db.$client;
    const done: Array<{ scope: TxScope; value: unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
    const started = performance.now();
    try {
      client.exec('BEGIN IMMEDIATE');
    } catch (error) {
      this.queue.shift()!.reject(error);
      return;
    }
    let n = 0;
    while (n < this.limits.transactions && (n === 0 || performance.now() - started < this.limits.ms)) {
      // The COMMIT's fsync blocks the event loop, so nothing can queue during it: before committing, let this turn's
      // other callbacks (a finished run's next step, another request) ask for their writes, and take them along.
      if (this.queue.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.queue.length === 0) break;
      const entry = this.queue.shift()!;
      this.stats.transactions += 1;
      const name = `g${++n}`;
      client.exec(`SAVEPOINT ${name}`);
      const scope = new TxScope(this.db, undefined, false);
      try {
        const value = await txContext.run(scope, () => entry.fn(this.db));
        client.exec(`RELEASE ${name}`);
        done.push({ scope, value, resolve: entry.resolve, reject: entry.reject });
      } catch (error) {
        entry.reject(error);
        if (!client.inTransaction) {
          // SQLite rolled the whole transaction back (e.g. disk full): the work already done here is gone too.
          for (const d of done) d.reject(error);
          return;
        }
        client.exec(`ROLLBACK TO ${name}`);
        client.exec(`RELEASE ${name}`);
      }
    }
    try {
      client.exec('COMMIT');
      this.stats.commits += 1;
    } catch (error) {
      if (client.inTransaction) client.exec('ROLLBACK');
      for (const d of done) d.reject(error);
      return;
    }
    // Each caller goes on in a turn of the event loop of its own: a caller's continuation (a run's next step:
    // building its graph, its next write) runs until its next wait, and 64 of them resolved at once ran back to
    // back with nothing else served — a stream's chunk or a request waited behind all of them (docs/performance.md).
    for (const [i, d] of done.entries()) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      d.scope.committed();
      d.resolve(d.value);
    }
  }
}
