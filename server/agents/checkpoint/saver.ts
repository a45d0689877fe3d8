import 'server-only';
import type Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  copyCheckpoint,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { fromRuns, parseRuns, toRuns } from './ranges';
import { createCheckpointTables } from './schema';
import { SharedFsync } from './shared-fsync';
import { drainJournal } from './step-journal';

/** The channel stored as rows instead of inside every checkpoint (MessagesAnnotation's list). */
export const MESSAGES_CHANNEL = 'messages';

/** Deserialized messages kept in memory across threads, so a run on a long thread does not decode it again. */
const CACHED_MESSAGES = 50_000;
/** Threads whose newest put list is remembered for the next put's identity check. */
const REMEMBERED_LISTS = 1_000;

type CheckpointRow = {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string;
  checkpoint: Buffer;
  metadata: Buffer;
  messages: string | null;
};
type WriteRow = { task_id: string; channel: string; type: string; value: Buffer | null };
type MessageRow = { position: number; type: string; value: Buffer };

/** Where a message object already lives in storage; valid while the thread's generation is unchanged. */
type StoredAt = { key: string; generation: number; position: number; id: unknown; content: unknown };

const threadKey = (threadId: string, ns: string) => `${threadId}\u0000${ns}`;

/**
 * A LangGraph checkpointer that stores each message once (ADR 013). The messages channel of a checkpoint is
 * written as new rows for the messages it has not stored yet plus a short list of positions; every other
 * channel, the metadata and pending writes are stored as the library saver stores them. Reading a checkpoint
 * rebuilds exactly the list that was put, for any checkpoint id, so interrupts, recovery and history read what the
 * library's own saver would give them.
 *
 * Messages are values: LangGraph's reducer replaces a message by id instead of changing it, so an object this
 * saver stored or loaded is known by identity and not serialized again. A changed object (other id or content
 * reference) counts as new.
 */
export class ThreadSaver extends BaseCheckpointSaver {
  readonly engine = 'sqlite';
  readonly db: Database.Database;
  /** Steps commit on their own but share an fsync (ADR 035); pruning commits without waiting for one. */
  readonly fsync: SharedFsync;
  private readonly stored = new WeakMap<object, StoredAt>();
  /** Thread → position → message, least recently used thread first. */
  private readonly cache = new Map<string, Map<number, unknown>>();
  private cachedCount = 0;
  /** Per thread, the newest list put or read and its positions (the next put usually extends it). */
  private readonly lastPut = new Map<string, { items: unknown[]; ids: unknown[]; contents: unknown[]; positions: number[]; generation: number }>();
  /** Bumped when a thread's rows are deleted, so remembered positions of that thread stop counting. */
  private readonly generations = new Map<string, number>();
  private readonly sql: ReturnType<typeof prepare>;

  constructor(db: Database.Database, serde?: SerializerProtocol) {
    super(serde);
    this.db = db;
    createCheckpointTables(db);
    this.fsync = new SharedFsync(db);
    this.sql = prepare(db);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { thread_id: threadId, checkpoint_ns: ns = '', checkpoint_id: checkpointId } = config.configurable ?? {};
    if (!threadId) return undefined;
    const row = (checkpointId ? this.sql.byId.get(threadId, ns, checkpointId) : this.sql.latest.get(threadId, ns)) as CheckpointRow | undefined;
    return row ? this.toTuple(row) : undefined;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options;
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const where: string[] = [];
    const args: string[] = [];
    const clause = (sql: string, value: string) => {
      where.push(sql);
      args.push(value);
    };
    if (threadId) clause('thread_id = ?', threadId);
    if (ns !== undefined && ns !== null) clause('checkpoint_ns = ?', ns);
    if (before?.configurable?.checkpoint_id !== undefined) clause('checkpoint_id < ?', before.configurable.checkpoint_id);
    const sql = `SELECT * FROM thread_checkpoints ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY checkpoint_id DESC`;
    const wanted = Object.entries(filter ?? {}).filter(([, v]) => v !== undefined);
    let yielded = 0;
    for (const row of this.db.prepare(sql).all(...args) as CheckpointRow[]) {
      if (limit !== undefined && yielded >= limit) return;
      if (wanted.length) {
        const metadata = (await this.serde.loadsTyped(row.type, row.metadata)) as Record<string, unknown>;
        if (!wanted.every(([k, v]) => JSON.stringify(metadata?.[k]) === JSON.stringify(v))) continue;
      }
      yielded++;
      yield await this.toTuple(row);
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _newVersions?: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const parentId = (config.configurable?.checkpoint_id as string | undefined) ?? null;
    if (!threadId) throw new Error('Missing "thread_id" field in passed "config.configurable".');
    const key = threadKey(threadId, ns);
    const generation = this.generations.get(key) ?? 0;
    const rest = copyCheckpoint(checkpoint);
    const messages = rest.channel_values[MESSAGES_CHANNEL];
    const list = Array.isArray(messages) ? (messages as unknown[]) : undefined;
    if (list) delete rest.channel_values[MESSAGES_CHANNEL];

    // Positions of messages storage already holds: the previous put's list by identity (an appended list shares
    // its whole prefix), else any object this saver stored or decoded. Only the rest is serialized.
    const items = list ?? [];
    const positions: Array<number | undefined> = new Array(items.length);
    const last = this.lastPut.get(key);
    const shared = last && last.generation === generation ? Math.min(last.items.length, items.length) : 0;
    let i = 0;
    while (i < shared && items[i] === last!.items[i] && sameValue(items[i], last!.ids[i], last!.contents[i])) {
      positions[i] = last!.positions[i];
      i++;
    }
    for (; i < items.length; i++) positions[i] = this.storedAt(key, generation, items[i]);
    // Readers get a fresh message as stored (decoded again), exactly what a new process would read.
    const fresh: Array<{ index: number; message: unknown; stored: unknown; type: string; value: Uint8Array }> = [];
    for (const [index, message] of items.entries()) {
      if (positions[index] !== undefined) continue;
      const [type, value] = await this.serde.dumpsTyped(message);
      fresh.push({ index, message, stored: await this.serde.loadsTyped(type, value), type, value });
    }
    const [[type, body], [metaType, meta]] = await Promise.all([this.serde.dumpsTyped(rest), this.serde.dumpsTyped(metadata)]);
    if (type !== metaType) throw new Error('Failed to serialize checkpoint and metadata to the same type.');

    const written = this.fsync.unsynced(() => {
      // Rows of this thread were deleted while serializing: the reused positions may be gone, so start over.
      if ((this.generations.get(key) ?? 0) !== generation) return false;
      let next = ((this.sql.maxPosition.get(threadId, ns) as { p: number | null }).p ?? 0) + 1;
      for (const f of fresh) {
        const position = next++;
        this.sql.insertMessage.run(threadId, ns, position, messageId(f.message), f.type, f.value);
        positions[f.index] = position;
      }
      const runs = list ? JSON.stringify(toRuns(positions as number[])) : null;
      this.sql.insertCheckpoint.run(threadId, ns, checkpoint.id, parentId, type, body, meta, runs);
      // The root thread's step journal (run events…) is saved with the step it describes.
      if (ns === '') drainJournal(threadId, this.db);
      return true;
    });
    if (!written) return this.put(config, checkpoint, metadata, _newVersions);
    for (const f of fresh) {
      this.remember(key, positions[f.index]!, f.stored);
      this.markStored(key, positions[f.index]!, f.message);
    }
    // A copy: the caller's array may change after this call; the memo must keep what was written.
    if (list) this.rememberList(key, list.slice(), positions as number[], generation);
    await this.fsync.durable();
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const { thread_id: threadId, checkpoint_ns: ns = '', checkpoint_id: checkpointId } = config.configurable ?? {};
    if (!threadId) throw new Error('Missing thread_id field in config.configurable.');
    if (!checkpointId) throw new Error('Missing checkpoint_id field in config.configurable.');
    // Special writes (error, interrupt, resume…) replace an earlier one of the same task; ordinary ones never do.
    const allSpecial = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return [threadId, ns, checkpointId, taskId, taskPath, WRITES_IDX_MAP[channel] ?? idx, channel, type, bytes] as const;
      }),
    );
    const insert = allSpecial ? this.sql.replaceWrite : this.sql.insertWrite;
    this.fsync.unsynced(() => {
      for (const row of rows) insert.run(...row);
      if (ns === '') drainJournal(threadId as string, this.db);
    });
    await this.fsync.durable();
  }

  async deleteThread(threadId: string): Promise<void> {
    this.db.transaction(() => {
      for (const table of ['thread_checkpoints', 'thread_writes', 'thread_messages', 'run_events', 'thread_compactions']) this.db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(threadId);
    })();
    for (const key of [...this.cache.keys(), ...this.generations.keys()]) if (key.startsWith(`${threadId}\u0000`)) this.forget(key);
    // Namespaces never seen in this process have no remembered positions; bump the root one anyway.
    this.forget(threadKey(threadId, ''));
  }

  /** Drop what this process remembers about a thread's rows (after rows were deleted under it). */
  forget(key: string): void {
    const cached = this.cache.get(key);
    if (cached) this.cachedCount -= cached.size;
    this.cache.delete(key);
    this.lastPut.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  forgetThread(threadId: string, ns = ''): void {
    this.forget(threadKey(threadId, ns));
  }

  private async toTuple(row: CheckpointRow): Promise<CheckpointTuple> {
    const ns = row.checkpoint_ns;
    const checkpoint = (await this.serde.loadsTyped(row.type, row.checkpoint)) as Checkpoint;
    if (row.messages !== null) {
      checkpoint.channel_values ??= {};
      const positions = fromRuns(parseRuns(row.messages));
      const messages = await this.loadMessages(row.thread_id, ns, positions);
      checkpoint.channel_values[MESSAGES_CHANNEL] = messages;
      // The next put on this thread (a run continuing from here) extends this list: let it match by identity.
      this.rememberList(threadKey(row.thread_id, ns), messages.slice(), positions);
    }
    const writes = this.sql.writes.all(row.thread_id, ns, row.checkpoint_id) as WriteRow[];
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      writes.map(async (w) => [w.task_id, w.channel, await this.serde.loadsTyped(w.type, w.value ?? '')] as CheckpointPendingWrite),
    );
    return {
      config: { configurable: { thread_id: row.thread_id, checkpoint_ns: ns, checkpoint_id: row.checkpoint_id } },
      checkpoint,
      metadata: (await this.serde.loadsTyped(row.type, row.metadata)) as CheckpointMetadata,
      parentConfig: row.parent_checkpoint_id ? { configurable: { thread_id: row.thread_id, checkpoint_ns: ns, checkpoint_id: row.parent_checkpoint_id } } : undefined,
      pendingWrites,
    };
  }

  /** The messages at these positions, in order: a new array each time, the message objects shared from the cache. */
  private async loadMessages(threadId: string, ns: string, positions: number[]): Promise<unknown[]> {
    const key = threadKey(threadId, ns);
    const cached = this.cache.get(key) ?? new Map<number, unknown>();
    const missing = positions.filter((p) => !cached.has(p));
    if (missing.length) {
      for (const [first, last] of toRuns([...new Set(missing)].sort((a, b) => a - b))) {
        for (const row of this.sql.messages.all(threadId, ns, first, last) as MessageRow[]) {
          if (cached.has(row.position)) continue;
          const message = await this.serde.loadsTyped(row.type, row.value);
          this.remember(key, row.position, message, cached);
        }
      }
      const lost = positions.find((p) => !cached.has(p));
      if (lost !== undefined) throw new Error(`Checkpoint of thread ${threadId} refers to message position ${lost}, which is not stored`);
    }
    this.touch(key, cached);
    return positions.map((p) => cached.get(p));
  }

  private storedAt(key: string, generation: number, message: unknown): number | undefined {
    if (typeof message !== 'object' || message === null) return undefined;
    const at = this.stored.get(message);
    if (!at || at.key !== key || at.generation !== generation) return undefined;
    const m = message as { id?: unknown; content?: unknown };
    return at.id === m.id && at.content === m.content ? at.position : undefined;
  }

  private rememberList(key: string, items: unknown[], positions: number[], generation = this.generations.get(key) ?? 0): void {
    this.lastPut.delete(key);
    const field = (name: 'id' | 'content') => items.map((m) => (m as Record<string, unknown> | null)?.[name]);
    this.lastPut.set(key, { items, ids: field('id'), contents: field('content'), positions, generation });
    if (this.lastPut.size > REMEMBERED_LISTS) this.lastPut.delete(this.lastPut.keys().next().value!);
  }

  /** Know this object as the message at `position`, so putting it again costs no serialization. */
  private markStored(key: string, position: number, message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const m = message as { id?: unknown; content?: unknown };
    this.stored.set(message, { key, generation: this.generations.get(key) ?? 0, position, id: m.id, content: m.content });
  }

  /** Cache a decoded message for readers (and know it when it comes back in a later checkpoint). */
  private remember(key: string, position: number, message: unknown, cached = this.cache.get(key) ?? new Map<number, unknown>()): void {
    this.markStored(key, position, message);
    if (!cached.has(position)) this.cachedCount++;
    cached.set(position, message);
    this.touch(key, cached);
  }

  /** Mark a thread most recently used and evict the least recently used threads beyond the cache bound. */
  private touch(key: string, cached: Map<number, unknown>): void {
    this.cache.delete(key);
    this.cache.set(key, cached);
    for (const [oldest, entries] of this.cache) {
      if (this.cachedCount <= CACHED_MESSAGES || oldest === key) break;
      this.cache.delete(oldest);
      this.cachedCount -= entries.size;
    }
  }
}

/** The object still has the id and content (reference) it had when it was stored: not changed in place. */
function sameValue(message: unknown, id: unknown, content: unknown): boolean {
  const m = message as { id?: unknown; content?: unknown } | null;
  return m?.id === id && m?.content === content;
}

function messageId(message: unknown): string | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}

function prepare(db: Database.Database) {
  const columns = 'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata, messages';
  return {
    latest: db.prepare(`SELECT ${columns} FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`),
    byId: db.prepare(`SELECT ${columns} FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`),
    insertCheckpoint: db.prepare(`INSERT OR REPLACE INTO thread_checkpoints (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    maxPosition: db.prepare(`SELECT max(position) AS p FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = ?`),
    insertMessage: db.prepare(`INSERT INTO thread_messages (thread_id, checkpoint_ns, position, message_id, type, value) VALUES (?, ?, ?, ?, ?, ?)`),
    messages: db.prepare(`SELECT position, type, value FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = ? AND position BETWEEN ? AND ?`),
    // writesSortKey order (task path, task id, index): the order LangGraph applies a superstep's writes in.
    writes: db.prepare(`SELECT task_id, channel, type, value FROM thread_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_path, task_id, idx`),
    insertWrite: db.prepare(
      `INSERT OR IGNORE INTO thread_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    replaceWrite: db.prepare(
      `INSERT OR REPLACE INTO thread_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}
