import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { JsonPlusSerializer, type BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ThreadSaver } from '@/server/agents/checkpoint/saver';
import { pruneThread } from '@/server/agents/checkpoint/prune';

// The saver on its own, against the library saver as the oracle: the same graph driven the same way must leave
// the same message list in every checkpoint, read back by a fresh saver (a new process) for any checkpoint id.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-saver-'));
afterAll(async () => fs.rmSync(dir, { recursive: true, force: true }));
const serde = new JsonPlusSerializer();
const text = async (value: unknown) => new TextDecoder().decode((await serde.dumpsTyped(value))[1]);

/**
 * A graph whose node answers a human message by its first word: `edit ID` replaces message ID, `drop ID` removes
 * it, `tool` adds a tool call and its result, anything else appends a reply. Message ids are deterministic.
 */
function scriptGraph(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', (state: typeof MessagesAnnotation.State) => {
      const last = state.messages.at(-1)!;
      const [verb, target] = String(last.content).split(' ');
      const n = state.messages.length;
      if (verb === 'edit') return { messages: [new AIMessage({ id: target, content: `edited at ${n}` })] };
      if (verb === 'drop') return { messages: [new RemoveMessage({ id: target! })] };
      if (verb === 'tool') {
        return {
          messages: [
            new AIMessage({ id: `call-${n}`, content: '', tool_calls: [{ id: `tc-${n}`, name: 'calculator', args: { expression: `${n}*2` } }] }),
            new ToolMessage({ id: `result-${n}`, tool_call_id: `tc-${n}`, name: 'calculator', content: String(n * 2) }),
          ],
        };
      }
      return { messages: [new AIMessage({ id: `reply-${n}`, content: `reply to ${String(last.content)} `.repeat(20), additional_kwargs: { n } })] };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer: saver });
}

// Ids follow the list length when the node runs: reply-1, call-3/result-3, reply-6, call-9/result-9, reply-12, reply-15.
const SCRIPT = ['hello', 'tool', 'more words', 'edit reply-1', 'tool', 'drop reply-6', 'again', 'edit call-3', 'final'];

async function drive(saver: BaseCheckpointSaver, thread: string) {
  const graph = scriptGraph(saver);
  for (const [i, line] of SCRIPT.entries()) {
    await graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: line })] }, { configurable: { thread_id: thread } });
  }
}

/** Every checkpoint of a thread, oldest first: step, source, the serialized message list (or null) and pending writes (task ids differ per run, so left out). */
async function history(saver: BaseCheckpointSaver, thread: string) {
  const out: Array<{ id: string; step: unknown; source: unknown; messages: string | null; writes: string }> = [];
  for await (const t of saver.list({ configurable: { thread_id: thread } })) {
    const messages = t.checkpoint.channel_values.messages as BaseMessage[] | undefined;
    out.push({ id: t.checkpoint.id, step: t.metadata?.step, source: t.metadata?.source, messages: messages ? await text(messages) : null, writes: await text((t.pendingWrites ?? []).map(([, channel, value]) => [channel, value])) });
  }
  return out.reverse();
}

const open = (file: string) => {
  const db = new Database(path.join(dir, file));
  db.pragma('journal_mode = WAL');
  return db;
};

describe('ThreadSaver', () => {
  it('keeps, in every checkpoint, exactly the message list the library saver keeps (appends, tool calls, replacements, removals)', async () => {
    const library = new SqliteSaver(open('library.db'));
    await drive(library, 't');
    const expected = await history(library, 't');

    const db = open('thread.db');
    await drive(new ThreadSaver(db), 't');
    // A fresh saver on the same file: nothing comes from the writer's memory.
    const reopened = new ThreadSaver(db);
    const actual = await history(reopened, 't');
    expect(actual.map(({ id: _id, ...rest }) => rest)).toEqual(expected.map(({ id: _id, ...rest }) => rest));
    expect(actual.length).toBe(SCRIPT.length * 3);

    // Any checkpoint id reads back the same through getTuple, as interrupts and recovery address them.
    for (const c of actual) {
      const tuple = await reopened.getTuple({ configurable: { thread_id: 't', checkpoint_id: c.id } });
      const messages = tuple!.checkpoint.channel_values.messages as BaseMessage[] | undefined;
      expect(messages ? await text(messages) : null).toBe(c.messages);
    }
    const final = JSON.parse(actual.at(-1)!.messages!) as Array<{ kwargs: { id: string; content: string } }>;
    expect(final.find((m) => m.kwargs.id === 'reply-1')!.kwargs.content).toBe('edited at 8');
    expect(final.some((m) => m.kwargs.id === 'reply-6')).toBe(false);
    expect(final.find((m) => m.kwargs.id === 'call-3')!.kwargs.content).toBe('edited at 14');
    expect(final.at(-1)!.kwargs.id).toBe('reply-15');
  });

  it('stores each message once: rows grow with the messages, not with the checkpoints', async () => {
    const db = open('once.db');
    await drive(new ThreadSaver(db), 'once');
    const rows = (db.prepare(`SELECT count(*) AS n FROM thread_messages WHERE thread_id = 'once'`).get() as { n: number }).n;
    // 9 human messages, 4 replies, 2 × 2 tool messages, 2 edits (new versions of a message); a removal adds no row.
    expect(rows).toBe(9 + 4 + 4 + 2);
  });

  it('pruning keeps the newest checkpoint identical, drops superseded ones and replaced versions, and later runs continue', async () => {
    const db = open('prune.db');
    const saver = new ThreadSaver(db);
    await drive(saver, 'p');
    const before = await history(saver, 'p');
    const result = pruneThread(saver, 'p');
    expect(result.checkpoints).toBe(before.length - 1);
    // The versions replaced by the two edits and the removed reply are no longer listed anywhere.
    expect(result.messages).toBe(3);
    const after = await history(new ThreadSaver(db), 'p');
    expect(after).toEqual([before.at(-1)]);

    await scriptGraph(saver).invoke({ messages: [new HumanMessage({ id: 'h-next', content: 'after pruning' })] }, { configurable: { thread_id: 'p' } });
    const latest = await new ThreadSaver(db).getTuple({ configurable: { thread_id: 'p' } });
    const messages = latest!.checkpoint.channel_values.messages as BaseMessage[];
    expect(await text(messages.slice(0, -2))).toBe(before.at(-1)!.messages);
    expect(messages.slice(-2).map((m) => m.id)).toEqual(['h-next', `reply-${messages.length - 1}`]);
  });

  it('a message changed in place after it was stored is stored again, not taken for the old version', async () => {
    const db = open('mutate.db');
    const saver = new ThreadSaver(db);
    const graph = scriptGraph(saver);
    const config = { configurable: { thread_id: 'm' } };
    await graph.invoke({ messages: [new HumanMessage({ id: 'h-0', content: 'hello' })] }, config);
    const tuple = await saver.getTuple(config);
    const loaded = tuple!.checkpoint.channel_values.messages as BaseMessage[];
    loaded[1]!.content = 'changed in place';
    await saver.put(config, { ...tuple!.checkpoint, id: '1f1f0000-0000-6000-8000-000000000000' }, { source: 'update', step: 99, parents: {} }, {});
    const reread = await new ThreadSaver(db).getTuple({ configurable: { thread_id: 'm', checkpoint_id: '1f1f0000-0000-6000-8000-000000000000' } });
    expect((reread!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['hello', 'changed in place']);
  });

  it('deleteThread removes the thread’s checkpoints, writes and messages and leaves other threads alone', async () => {
    const db = open('delete.db');
    const saver = new ThreadSaver(db);
    await drive(saver, 'gone');
    await drive(saver, 'kept');
    await saver.putWrites({ configurable: { thread_id: 'gone', checkpoint_ns: '', checkpoint_id: (await history(saver, 'gone')).at(-1)!.id } }, [['messages', []]], 'task');
    const count = (table: string, thread: string) => (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ?`).get(thread) as { n: number }).n;
    expect(count('thread_writes', 'gone')).toBeGreaterThan(0);
    const keptBefore = await history(saver, 'kept');

    await saver.deleteThread('gone');
    for (const table of ['thread_checkpoints', 'thread_writes', 'thread_messages']) expect(count(table, 'gone')).toBe(0);
    expect(await saver.getTuple({ configurable: { thread_id: 'gone' } })).toBeUndefined();
    expect(await history(saver, 'kept')).toEqual(keptBefore);
    // The thread can start again from nothing: no remembered positions point at deleted rows.
    await scriptGraph(saver).invoke({ messages: [new HumanMessage({ id: 'h-new', content: 'fresh start' })] }, { configurable: { thread_id: 'gone' } });
    const fresh = await new ThreadSaver(db).getTuple({ configurable: { thread_id: 'gone' } });
    expect((fresh!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.id)).toEqual(['h-new', 'reply-1']);
  });
});
