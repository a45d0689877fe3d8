import 'server-only';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './types';

/**
 * The open write transaction of the current async call chain (ADR 033 §3). `getDb()` inside `writeTx` answers the
 * transaction's handle, so code that reads through `getDb()` sees its own uncommitted writes, and code outside
 * reads committed rows only. Work to do once the transaction commits (push notes, waking the scheduler) is kept
 * here and run after COMMIT, never after a rollback, and outside the transaction's context.
 */
export class TxScope {
  private readonly callbacks: (() => void)[] = [];
  private readonly locals = new Map<symbol, unknown>();
  depth = 0;

  constructor(
    readonly db: Db,
    /** The engine's own handle for this transaction (Postgres: the pool client; SQLite: undefined). */
    readonly client: unknown,
    /** A readTx's snapshot: a writeTx started inside it is a transaction of its own, not a savepoint of this. */
    readonly readOnly: boolean,
    private readonly parent?: TxScope,
  ) {}

  /** A savepoint's scope: its callbacks join the parent's only if the savepoint is released, not rolled back. */
  child(): TxScope {
    return new TxScope(this.db, this.client, this.readOnly, this);
  }

  afterCommit(callback: () => void): void {
    this.callbacks.push(callback);
  }

  /** A value kept for this transaction (and its savepoints), created on first use. */
  local<T>(key: symbol, create: () => T): { value: T; created: boolean } {
    const root = this.root();
    if (root.locals.has(key)) return { value: root.locals.get(key) as T, created: false };
    const value = create();
    root.locals.set(key, value);
    return { value, created: true };
  }

  /** The savepoint was released: its callbacks now wait for the outer commit. */
  released(): void {
    this.parent?.callbacks.push(...this.callbacks);
  }

  /** The outermost transaction committed: run the callbacks, in order, outside any transaction. */
  committed(): void {
    for (const callback of this.callbacks) {
      txContext.exit(() => {
        try {
          callback();
        } catch (error) {
          console.error('[db] an after-commit callback failed:', error);
        }
      });
    }
  }

  private root(): TxScope {
    return this.parent ? this.parent.root() : this;
  }
}

// Route bundles and instrumentation can load separate copies of this module: one context per process on globalThis,
// or a query made through another copy would not see the transaction it runs in.
const g = globalThis as unknown as { __ensembleTxContext?: AsyncLocalStorage<TxScope> };
export const txContext = (g.__ensembleTxContext ??= new AsyncLocalStorage<TxScope>());

export const currentTx = (): TxScope | undefined => txContext.getStore();

/** Run fn once the current transaction commits (at once, in a microtask, outside one). */
export function afterCommit(callback: () => void): void {
  const scope = currentTx();
  if (scope) scope.afterCommit(callback);
  else queueMicrotask(callback);
}
