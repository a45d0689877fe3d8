import 'server-only';
import type pg from 'pg';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  copyCheckpoint,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { fromRuns, toRuns, type PositionRuns } from './ranges';

/** The channel stored as rows instead of inside every checkpoint (MessagesAnnotation's list), as in saver.ts. */
export const MESSAGES_CHANNEL = 'messages';

/** The session advisory lock setup() holds: several processes starting at once set the tables up once (ADR 033 §8). */
export const SETUP_LOCK_KEY = 'ensemble:checkpoint-setup';
/** First key of the per-thread transaction lock taken while numbering a thread's new messages. */
const THREAD_LOCK_CLASS = 'ensemble:thread-messages';

/** Key of the small value the library stores instead of the message list: which positions, in order. */
export const MARKER_KEY = 'ensembleThreadMessages';
export type MessagesMarker = { [MARKER_KEY]: PositionRuns };

/** Deserialized messages kept in memory across threads, so a run on a long thread does not decode it again. */
const CACHED_MESSAGES = 50_000;
/** Threads whose newest put list is remembered for the next put's identity check. */
const REMEMBERED_LISTS = 1_000;

/** Where a message object already lives in storage; valid while the thread's generation is unchanged. */
type StoredAt = { threadId: string; generation: number; position: number; id: unknown; content: unknown };

/**
 * The app's own tables beside the checkpoints (run events, compactions: checkpointer.ts) and the step journal that
 * fills them. The saver creates them in its setup, deletes a thread's rows with the thread, and writes a root
 * step's journal in the transaction that stores the step's message rows, before the library's commit.
 */
export type PgCheckpointSide = {
  setup(client: pg.ClientBase): Promise<void>;
  deleteThread(client: pg.ClientBase, threadId: string): Promise<void>;
  /** Does the thread have step writes queued? (cheap, synchronous: no transaction is opened for nothing) */
  pending(threadId: string): boolean;
  /** Take the thread's queued step writes and write them on `client`; returns what to run after COMMIT. */
  write(client: pg.ClientBase, threadId: string, saver: PgThreadSaver): Promise<() => void>;
};

export type PgThreadSaverOptions = {
  /** Postgres schema of the library's tables and of thread_messages (the library's default is "public"). */
  schema?: string;
  serde?: SerializerProtocol;
  side?: PgCheckpointSide;
};

/**
 * The official `PostgresSaver` with ADR 013's property (ADR 033 §7): the `messages` channel's messages are stored
 * once per thread in `thread_messages`, and the checkpoint handed to the library carries a marker naming their
 * positions (`{ ensembleThreadMessages: [[1, 40]] }`: runs of consecutive positions) instead of the list, so the
 * library's blob for each new version of the channel stays a few bytes however long the conversation is.
 * `getTuple`/`list` put the list back; any checkpoint reads back exactly the list that was put (the plain saver is
 * the oracle in test-pg/checkpoint-saver.test.ts).
 *
 * Only the library's public methods are used (`setup`, `put`, `putWrites`, `getTuple`, `list`, `deleteThread`).
 * A put numbers and commits the messages it has not stored yet (one transaction, under a per-thread lock) before the
 * library commits the checkpoint that refers to them, so a committed checkpoint never names a missing row; a put
 * that fails after the first commit leaves message rows no checkpoint names (harmless; pruning removes them once a
 * later checkpoint names higher positions). Positions are per thread, shared by all checkpoint namespaces of the thread.
 * With a `side`, the root graph's step journal (run events, compactions) is written in that same transaction, or in
 * one of its own just before a put or putWrites that stores no message: it commits before the library's checkpoint or
 * writes, so a crash in between records the step's events and the step is redone (recorded twice, never lost; the
 * public API offers no way into the library's transaction). A thread's journal transactions commit in the order
 * their entries were queued (per-thread queue in the process, per-thread advisory lock across processes).
 *
 * Like saver.ts, messages already stored are found by object identity (the previous list of the thread, then a
 * WeakMap of objects stored or decoded here, checked against their id and content reference), so a step
 * serializes only the messages it adds. A replaced message (same id, new content) is a new row; a removal adds
 * none (the marker skips its position). This memory is per process: another process knows nothing of it and simply
 * stores the messages it has not seen as new rows (correct, a few duplicate rows).
 */
export class PgThreadSaver extends BaseCheckpointSaver<number> {
  readonly engine = 'postgres';
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The official saver every checkpoint, blob and pending write goes through. */
  readonly inner: PostgresSaver;
  private readonly table: string;
  private readonly stored = new WeakMap<object, StoredAt>();
  /** Thread → position → message, least recently used thread first. */
  private readonly cache = new Map<string, Map<number, unknown>>();
  private cachedCount = 0;
  /** Per thread, the newest list put or read and its positions (the next put usually extends it). */
  private readonly lastPut = new Map<string, { items: unknown[]; ids: unknown[]; contents: unknown[]; positions: number[]; generation: number }>();
  /** Bumped when a thread's rows are deleted, so remembered positions of that thread stop counting. */
  private readonly generations = new Map<string, number>();
  private readonly side: PgCheckpointSide | undefined;
  /** Per thread, the tail of its transactions that write step journals: they commit in the order they were taken. */
  private readonly queues = new Map<string, Promise<void>>();
  private setupDone: Promise<void> | undefined;

  constructor(pool: pg.Pool, options: PgThreadSaverOptions = {}) {
    super(options.serde);
    this.pool = pool;
    this.side = options.side;
    this.schema = options.schema ?? 'public';
    if (this.schema.includes('"')) throw new Error('A checkpoint schema name cannot contain a double quote.');
    // One serializer for both: the messages rows are written with the serde the library uses for blobs.
    this.inner = new PostgresSaver(pool, this.serde, { schema: this.schema });
    this.table = `"${this.schema}".thread_messages`;
  }

  /**
   * Create the library's tables (its migrations) and thread_messages, holding a session advisory lock on one
   * client meanwhile: the library's setup() is not safe when several processes start at once (ADR 033 §8). The
   * library's setup() takes a second client from the pool, so the pool must allow two connections.
   */
  async setup(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(hashtext($1))`, [SETUP_LOCK_KEY]);
      try {
        await this.inner.setup();
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.table} (thread_id text NOT NULL, position integer NOT NULL, message json NOT NULL, PRIMARY KEY (thread_id, position))`,
        );
        await this.side?.setup(client);
      } finally {
        await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, [SETUP_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  /**
   * setup(), once per instance, before the first read or write (every public method waits for it): start-up needs
   * no call of its own. A failed setup is tried again by the next call.
   */
  ready(): Promise<void> {
    this.setupDone ??= this.setup().catch((error: unknown) => {
      this.setupDone = undefined;
      throw error;
    });
    return this.setupDone;
  }

  /** The library's version numbering (its blobs are keyed by channel and version). */
  getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.ready();
    const tuple = await this.inner.getTuple(config);
    return tuple ? this.restore(tuple) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.ready();
    for await (const tuple of this.inner.list(config, options)) yield await this.restore(tuple);
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions = {}): Promise<RunnableConfig> {
    await this.ready();
    const threadId = config.configurable?.thread_id as string | undefined;
    // The root graph's step journal is written with its step; subgraphs (other namespaces) have none of their own.
    const root = ((config.configurable?.checkpoint_ns as string | undefined) ?? '') === '';
    const list = checkpoint.channel_values?.[MESSAGES_CHANNEL];
    // Without a thread the library refuses the put itself; a value other than a list is not ours to store.
    if (!threadId || !Array.isArray(list)) {
      if (threadId && root) await this.flushStep(threadId);
      return this.inner.put(config, checkpoint, metadata, newVersions);
    }
    const rest = copyCheckpoint(checkpoint);
    // The library writes a blob only for the channels in newVersions: an unchanged list is read from the blob
    // (our marker) of its version, written when it changed, so nothing is stored or even looked at here.
    if (!newVersions || !(MESSAGES_CHANNEL in newVersions)) {
      delete rest.channel_values[MESSAGES_CHANNEL];
      if (root) await this.flushStep(threadId);
      return this.inner.put(config, rest, metadata, newVersions);
    }
    const positions = await this.storeMessages(threadId, list as unknown[], root);
    rest.channel_values[MESSAGES_CHANNEL] = { [MARKER_KEY]: toRuns(positions) } satisfies MessagesMarker;
    return this.inner.put(config, rest, metadata, newVersions);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    await this.ready();
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId && ((config.configurable?.checkpoint_ns as string | undefined) ?? '') === '') await this.flushStep(threadId);
    // Pending writes as the library stores them: a new message appears once there too, until pruning (ADR 013).
    // The library keeps no task path (it returns writes in task id, index order); the wrapper does not add one.
    return this.inner.putWrites(config, writes, taskId);
  }

  /** Delete the thread's checkpoints, blobs and writes (the library), then its messages. */
  async deleteThread(threadId: string): Promise<void> {
    await this.ready();
    // Checkpoints first: a checkpoint never names a message row that is gone.
    await this.inner.deleteThread(threadId);
    this.forget(threadId);
    await this.transaction(async (client) => {
      await client.query(`DELETE FROM ${this.table} WHERE thread_id = $1`, [threadId]);
      await this.side?.deleteThread(client, threadId);
    });
    this.forget(threadId);
  }

  /**
   * Write the thread's queued step journal now, in a transaction of its own (before a put or putWrites that stores
   * no message rows, and at a run's end, outside any step). Nothing queued: no transaction.
   */
  async flushStep(threadId: string): Promise<void> {
    if (!this.side?.pending(threadId)) return;
    await this.ready();
    const after = await this.serial(threadId, () =>
      this.transaction(async (client) => {
        await this.lockThread(client, threadId);
        return this.side!.write(client, threadId, this);
      }),
    );
    after();
  }

  /** Drop what this process remembers about a thread's rows (after rows were deleted under it). */
  forget(threadId: string): void {
    const cached = this.cache.get(threadId);
    if (cached) this.cachedCount -= cached.size;
    this.cache.delete(threadId);
    this.lastPut.delete(threadId);
    this.generations.set(threadId, (this.generations.get(threadId) ?? 0) + 1);
  }

  /** Store the messages of `items` that storage does not hold yet; the positions of the whole list, in order. */
  private async storeMessages(threadId: string, items: unknown[], root: boolean): Promise<number[]> {
    const generation = this.generations.get(threadId) ?? 0;
    // Positions of messages storage already holds: the previous put's list by identity (an appended list shares
    // its whole prefix), else any object this saver stored or decoded. Only the rest is serialized.
    const positions: Array<number | undefined> = new Array(items.length);
    const last = this.lastPut.get(threadId);
    const shared = last && last.generation === generation ? Math.min(last.items.length, items.length) : 0;
    let i = 0;
    while (i < shared && items[i] === last!.items[i] && sameValue(items[i], last!.ids[i], last!.contents[i])) {
      positions[i] = last!.positions[i];
      i++;
    }
    for (; i < items.length; i++) positions[i] = this.storedAt(threadId, generation, items[i]);
    // Readers get a fresh message as stored (decoded again), exactly what a new process would read.
    const fresh: Array<{ index: number; message: unknown; stored: unknown; text: string }> = [];
    for (const [index, message] of items.entries()) {
      if (positions[index] !== undefined) continue;
      const [type, value] = await this.serde.dumpsTyped(message);
      if (type !== 'json') throw new Error(`A message serialized as "${type}", not JSON: it cannot be stored in thread_messages.`);
      const text = new TextDecoder().decode(value);
      fresh.push({ index, message, stored: await this.serde.loadsTyped(type, text), text });
    }
    const journaled = root && !!this.side?.pending(threadId);
    if (fresh.length || journaled) {
      const written = await this.serial(threadId, () =>
        this.transaction(async (client) => {
          await this.lockThread(client, threadId);
          // Rows of this thread were deleted while serializing: the reused positions may be gone, so start over.
          if ((this.generations.get(threadId) ?? 0) !== generation) return undefined;
          if (fresh.length) {
            // Numbered after the thread's highest position, in one statement (the lock keeps the numbers unique).
            const { rows } = await client.query<{ p: number }>(
              `INSERT INTO ${this.table} (thread_id, position, message)
               SELECT $1, coalesce((SELECT max(position) FROM ${this.table} WHERE thread_id = $1), 0) + u.n, u.m::json
               FROM unnest($2::text[]) WITH ORDINALITY AS u(m, n) RETURNING position AS p`,
              [threadId, fresh.map((f) => f.text)],
            );
            const first = Math.min(...rows.map((r) => r.p));
            for (const [i, f] of fresh.entries()) positions[f.index] = first + i;
          }
          // The step's journal (run events…) commits with its message rows, just before the library's checkpoint.
          return root && this.side ? await this.side.write(client, threadId, this) : () => undefined;
        }),
      );
      if (!written) return this.storeMessages(threadId, items, root);
      written();
      for (const f of fresh) {
        this.remember(threadId, positions[f.index]!, f.stored);
        this.markStored(threadId, positions[f.index]!, f.message);
      }
    }
    // A copy: the caller's array may change after this call; the memo must keep what was written.
    this.rememberList(threadId, items.slice(), positions as number[], generation);
    return positions as number[];
  }

  /**
   * The per-thread transaction lock: numbering a thread's messages, writing its journal and pruning it happen one at
   * a time, in every process.
   */
  async lockThread(client: pg.ClientBase, threadId: string): Promise<void> {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`, [THREAD_LOCK_CLASS, threadId]);
  }

  /** Run fn after the thread's earlier queued transactions (in this process), whether they failed or not. */
  private serial<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(threadId) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(threadId, tail);
    void tail.then(() => {
      if (this.queues.get(threadId) === tail) this.queues.delete(threadId);
    });
    return result;
  }

  /** fn in one READ COMMITTED transaction on a pooled client (rolled back when fn throws). */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The tuple with its marker (if any) replaced by the message list it names. */
  private async restore(tuple: CheckpointTuple): Promise<CheckpointTuple> {
    const runs = markerRuns(tuple.checkpoint.channel_values?.[MESSAGES_CHANNEL]);
    if (!runs) return tuple;
    const threadId = tuple.config.configurable?.thread_id as string;
    const positions = fromRuns(runs);
    const messages = await this.loadMessages(threadId, positions);
    tuple.checkpoint.channel_values[MESSAGES_CHANNEL] = messages;
    // The next put on this thread (a run continuing from here) extends this list: let it match by identity.
    this.rememberList(threadId, messages.slice(), positions);
    return tuple;
  }

  /** The messages at these positions, in order: a new array each time, the message objects shared from the cache. */
  private async loadMessages(threadId: string, positions: number[]): Promise<unknown[]> {
    const cached = this.cache.get(threadId) ?? new Map<number, unknown>();
    const missing = positions.filter((p) => !cached.has(p));
    if (missing.length) {
      const runs = toRuns([...new Set(missing)].sort((a, b) => a - b));
      const { rows } = await this.pool.query<{ position: number; message: string }>(
        `SELECT position, message::text AS message FROM ${this.table} JOIN unnest($2::integer[], $3::integer[]) AS r(first, last)
           ON position BETWEEN r.first AND r.last WHERE thread_id = $1`,
        [threadId, runs.map((r) => r[0]), runs.map((r) => r[1])],
      );
      for (const row of rows) {
        if (cached.has(row.position)) continue;
        this.remember(threadId, row.position, await this.serde.loadsTyped('json', row.message), cached);
      }
      const lost = positions.find((p) => !cached.has(p));
      if (lost !== undefined) throw new Error(`Checkpoint of thread ${threadId} refers to message position ${lost}, which is not stored`);
    }
    this.touch(threadId, cached);
    return positions.map((p) => cached.get(p));
  }

  private storedAt(threadId: string, generation: number, message: unknown): number | undefined {
    if (typeof message !== 'object' || message === null) return undefined;
    const at = this.stored.get(message);
    if (!at || at.threadId !== threadId || at.generation !== generation) return undefined;
    const m = message as { id?: unknown; content?: unknown };
    return at.id === m.id && at.content === m.content ? at.position : undefined;
  }

  private rememberList(threadId: string, items: unknown[], positions: number[], generation = this.generations.get(threadId) ?? 0): void {
    this.lastPut.delete(threadId);
    const field = (name: 'id' | 'content') => items.map((m) => (m as Record<string, unknown> | null)?.[name]);
    this.lastPut.set(threadId, { items, ids: field('id'), contents: field('content'), positions, generation });
    if (this.lastPut.size > REMEMBERED_LISTS) this.lastPut.delete(this.lastPut.keys().next().value!);
  }

  /** Know this object as the message at `position`, so putting it again costs no serialization. */
  private markStored(threadId: string, position: number, message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const m = message as { id?: unknown; content?: unknown };
    this.stored.set(message, { threadId, generation: this.generations.get(threadId) ?? 0, position, id: m.id, content: m.content });
  }

  /** Cache a decoded message for readers (and know it when it comes back in a later checkpoint). */
  private remember(threadId: string, position: number, message: unknown, cached = this.cache.get(threadId) ?? new Map<number, unknown>()): void {
    this.markStored(threadId, position, message);
    if (!cached.has(position)) this.cachedCount++;
    cached.set(position, message);
    this.touch(threadId, cached);
  }

  /** Mark a thread most recently used and evict the least recently used threads beyond the cache bound. */
  private touch(threadId: string, cached: Map<number, unknown>): void {
    this.cache.delete(threadId);
    this.cache.set(threadId, cached);
    for (const [oldest, entries] of this.cache) {
      if (this.cachedCount <= CACHED_MESSAGES || oldest === threadId) break;
      this.cache.delete(oldest);
      this.cachedCount -= entries.size;
    }
  }
}

/** The runs a stored marker names, or undefined when the value is not a marker (a corrupt marker throws). */
export function markerRuns(value: unknown): PositionRuns | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !(MARKER_KEY in value)) return undefined;
  const runs = (value as MessagesMarker)[MARKER_KEY];
  const ok =
    Array.isArray(runs) &&
    runs.every((r) => Array.isArray(r) && r.length === 2 && Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]) && r[0] <= r[1]);
  if (!ok) throw new Error(`Corrupt message positions in a checkpoint: ${JSON.stringify(value).slice(0, 80)}`);
  return runs;
}

/** The object still has the id and content (reference) it had when it was stored: not changed in place. */
function sameValue(message: unknown, id: unknown, content: unknown): boolean {
  const m = message as { id?: unknown; content?: unknown } | null;
  return m?.id === id && m?.content === content;
}
