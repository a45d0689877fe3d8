// test:pg skip: converts a checkpoints.db written by the library's SqliteSaver; Postgres has no such file
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer, type BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { migrateLibraryTables } from '@/server/agents/checkpoint/migrate';
import { COMPACTIONS_TABLE_SQL, hasLibraryTables } from '@/server/agents/checkpoint/schema';
import { ThreadSaver } from '@/server/agents/checkpoint/saver';
import { closeCheckpointer, getCheckpointer } from '@/server/agents/checkpointer';
import { setRunEventCapture } from '@/server/agents/observe/capture-switch';
import { resume } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { closeDb } from '@/server/db';
import { checkpointDbPath } from '@/server/db/paths';
import { makeUser } from '../support/users';
import { conversationWith, finished, send } from './helpers';

// A data directory written by the version before ADR 013: the real graph and runs service on the library's
// SqliteSaver, installed where getCheckpointer() keeps the process's saver. Opening it with today's code must
// convert it without losing or changing a message, checkpoint or pending write, and waiting runs must go on.

const serde = new JsonPlusSerializer();
const text = async (value: unknown) => new TextDecoder().decode((await serde.dumpsTyped(value))[1]);

async function snapshot(saver: BaseCheckpointSaver, threadId: string) {
  const out = new Map<string, { messages: string | null; writes: string; parent: unknown; metadata: string }>();
  for await (const t of saver.list({ configurable: { thread_id: threadId } })) {
    const messages = t.checkpoint.channel_values.messages as BaseMessage[] | undefined;
    out.set(t.checkpoint.id, {
      messages: messages ? await text(messages) : null,
      writes: await text(t.pendingWrites ?? []),
      parent: t.parentConfig?.configurable?.checkpoint_id,
      metadata: await text(t.metadata),
    });
  }
  return out;
}

function installLibrarySaver(): SqliteSaver {
  closeCheckpointer();
  // That version recorded no run events (ADR 014): its checkpoints.db has no run_events table.
  setRunEventCapture(false);
  const db = new Database(checkpointDbPath());
  db.pragma('journal_mode = WAL');
  // Today's graph asks for the thread's compaction record before every model call; that version had no such table
  // (nor any compaction), so the simulated old file gets an empty one — the conversion must leave it alone too.
  db.exec(COMPACTIONS_TABLE_SQL);
  const saver = new SqliteSaver(db);
  (globalThis as unknown as { __ensembleCheckpointer?: unknown }).__ensembleCheckpointer = { saver, path: checkpointDbPath() };
  return saver;
}

describe('a data directory written by the library saver', () => {
  it('is converted at the first open: every checkpoint reads the same, and waiting runs continue', async () => {
    const library = installLibrarySaver();
    const alice = await makeUser('alice');
    const chat = (await conversationWith(alice.id, { name: 'Chatty', toolGroups: ['utility'] })).conversation;
    for (let i = 1; i <= 6; i++) {
      const line = i % 2 ? `/call calculator {"expression":"${i} + ${i}"}` : `plain message ${i} ${'ü€ '.repeat(30)}`;
      expect((await send(alice.id, chat.id, line)).status).toBe('success');
    }
    const gate = (await conversationWith(alice.id, { name: 'Gate', toolGroups: ['utility'], approvalTools: ['calculator'] })).conversation;
    await send(alice.id, gate.id, 'hello first');
    expect((await send(alice.id, gate.id, '/call calculator {"expression":"6*7"}')).status).toBe('interrupted');
    const asks = (await conversationWith(alice.id, { name: 'Asks', toolGroups: ['clarify'] })).conversation;
    expect((await send(alice.id, asks.id, '/ask Morning or evening?')).status).toBe('interrupted');

    const threads = [chat.id, gate.id, asks.id];
    const before = new Map<string, Awaited<ReturnType<typeof snapshot>>>();
    for (const id of threads) before.set(id, await snapshot(library, id));
    expect(before.get(chat.id)!.size).toBeGreaterThan(20);

    const distinct = new Set<string>();
    for (const blob of library.db.prepare(`SELECT checkpoint FROM checkpoints WHERE thread_id = ?`).pluck().all(chat.id) as Buffer[]) {
      for (const m of (JSON.parse(blob.toString()).channel_values.messages ?? []) as unknown[]) distinct.add(JSON.stringify(m));
    }

    // "Upgrade": close everything, reopen with today's code.
    closeCheckpointer();
    await closeDb();
    setRunEventCapture(true);
    const saver = getCheckpointer() as ThreadSaver;
    expect(saver).toBeInstanceOf(ThreadSaver);
    expect(hasLibraryTables(saver.db)).toBe(false);
    expect(saver.db.pragma('auto_vacuum', { simple: true })).toBe(2);
    for (const id of threads) expect(await snapshot(saver, id)).toEqual(before.get(id));
    // Each distinct message is stored once, however many checkpoints listed it. (A message read back from storage
    // can serialize a little differently from the live one — an undefined field disappears — so both forms count.)
    const latest = JSON.parse(before.get(chat.id)!.values().next().value!.messages!) as unknown[];
    expect(distinct.size).toBeLessThan(before.get(chat.id)!.size);
    expect((saver.db.prepare(`SELECT count(*) AS n FROM thread_messages WHERE thread_id = ?`).get(chat.id) as { n: number }).n).toBe(distinct.size);

    const { run } = await resume(alice.id, gate.id, { approved: true }, { idempotencyKey: crypto.randomUUID() });
    expect((await finished(run.id)).status).toBe('success');
    expect((await readThread(gate.id)).messages.map((m) => [m.getType(), m.content])).toEqual([
      ['human', 'hello first'],
      ['ai', 'Gate received: hello first'],
      ['human', '/call calculator {"expression":"6*7"}'],
      ['ai', ''],
      ['tool', '42'],
      ['ai', 'Gate: done\n[calculator] 42'],
    ]);
    expect((await send(alice.id, asks.id, 'Evening')).status).toBe('success');
    expect((await readThread(asks.id)).messages.at(-2)).toMatchObject({ content: 'Evening' });
    expect((await send(alice.id, chat.id, 'after the upgrade')).status).toBe('success');
    expect((await readThread(chat.id)).messages.length).toBe(latest.length + 2);
  }, 60_000);

  it('is left untouched when a row cannot be converted (one transaction)', async () => {
    const db = new Database(':memory:');
    const library = new SqliteSaver(db);
    expect(await library.getTuple({ configurable: { thread_id: 'none' } })).toBeUndefined(); // creates the library's tables
    db.prepare(`INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('ok', '', 'a', 'json', ?, ?)`).run(
      Buffer.from(JSON.stringify({ v: 4, id: 'a', ts: '', channel_values: { messages: [] }, channel_versions: {}, versions_seen: {} })),
      Buffer.from('{}'),
    );
    db.prepare(`INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('odd', '', 'b', 'msgpack', x'00', x'00')`).run();
    expect(() => migrateLibraryTables(db)).toThrow(/stored as "msgpack"/);
    expect(hasLibraryTables(db)).toBe(true);
    expect((db.prepare(`SELECT count(*) AS n FROM checkpoints`).get() as { n: number }).n).toBe(2);
    expect((db.prepare(`SELECT count(*) AS n FROM thread_checkpoints`).get() as { n: number }).n).toBe(0);
  });
});
