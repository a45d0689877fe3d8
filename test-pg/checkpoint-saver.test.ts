import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, REMOVE_ALL_MESSAGES, START, StateGraph, messagesStateReducer } from '@langchain/langgraph';
import type { Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKER_KEY, PgThreadSaver } from '@/server/agents/checkpoint/pg-saver';
import { freshDatabase, type FreshDatabase } from './support/database';

// ADR 033 §7: PgThreadSaver wraps the official PostgresSaver and stores the messages channel once per thread.
// The plain PostgresSaver is the oracle: the same puts read back through both give equal tuples.

let db: FreshDatabase;
let plain: PostgresSaver;
let wrapped: PgThreadSaver;

beforeAll(async () => {
  db = await freshDatabase();
  plain = new PostgresSaver(db.pool, undefined, { schema: 'plain' });
  await plain.setup();
  wrapped = new PgThreadSaver(db.pool, { schema: 'wrapped' });
  await wrapped.setup();
});

afterAll(async () => {
  await db?.drop();
});

const checkpointId = (step: number) => `1f0c0000-0000-6000-8000-${String(step).padStart(12, '0')}`;
const alphabet = [...'あいうえおかきくけこ漢字会話测量存储한국어abcdefghijXYZ0123456789 .,🧪🌏😀👩🏽‍💻🚀'];
/** Deterministic text that Postgres cannot compress away (TOAST would hide a repetitive list's real size). */
function noise(seed: number, length = 160): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

/** Messages a step adds: a question and a tool call, or the tool's answer and a reply. CJK and emoji throughout. */
function added(step: number): BaseMessage[] {
  if (step % 2 === 1) {
    return [
      new HumanMessage({ id: `h${step}`, content: `質問 ${step}：天気はどう？ 🌦️ ${noise(step * 4)}` }),
      new AIMessage({
        id: `a${step}`,
        content: '',
        tool_calls: [{ id: `call_${step}`, name: 'weather', args: { city: '東京', note: `👩🏽‍💻 ${step}` }, type: 'tool_call' }],
      }),
    ];
  }
  return [
    new ToolMessage({ id: `t${step}`, tool_call_id: `call_${step - 1}`, name: 'weather', content: `晴れ ☀️ 25°C, 湿度 40% ${noise(step * 4 + 1)}` }),
    new AIMessage({ id: `r${step}`, content: `東京は晴れです 😀 (step ${step}) ${noise(step * 4 + 2)}${step === 6 ? ' NUL:\u0000 lone:\ud83d' : ''}` }),
  ];
}

type Step = { checkpoint: Checkpoint; metadata: CheckpointMetadata; config: RunnableConfig; newVersions: Record<string, number> };

/**
 * A conversation of `steps` steps, as LangGraph would put it: every checkpoint holds the whole list (computed with
 * LangGraph's own reducer, so unchanged messages are the same objects), the messages channel gets a new version
 * when the list changes. Step 12 replaces a message (same id, new content), step 20 removes one, step 15 changes
 * only another channel.
 */
function conversation(threadId: string, steps: number): Step[] {
  const out: Step[] = [];
  let messages: BaseMessage[] = [];
  const versions = { messages: 0, counter: 0 };
  let parent: string | undefined;
  for (let step = 1; step <= steps; step++) {
    const newVersions: Record<string, number> = { counter: ++versions.counter };
    if (step !== 15) {
      let update: BaseMessage[] = added(step);
      if (step === 12) update = [...update, new AIMessage({ id: 'r4', content: `訂正: 曇り ☁️ ${noise(999)}` })];
      if (step === 20) update = [...update, new RemoveMessage({ id: 'h7' })];
      messages = messagesStateReducer(messages, update) as BaseMessage[];
      newVersions.messages = ++versions.messages;
    }
    const id = checkpointId(step);
    out.push({
      checkpoint: {
        v: 4,
        id,
        ts: new Date(Date.UTC(2026, 11, 1, 12, 0, step)).toISOString(),
        channel_values: { messages, counter: step },
        channel_versions: { ...versions },
        versions_seen: { agent: { messages: Math.max(0, versions.messages - 1) } },
      },
      metadata: { source: 'loop', step, parents: {} },
      config: { configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: parent } },
      newVersions,
    });
    parent = id;
  }
  return out;
}

async function putBoth(step: Step, savers: Array<PostgresSaver | PgThreadSaver> = [plain, wrapped]) {
  for (const saver of savers) await saver.put(step.config, step.checkpoint, step.metadata, step.newVersions);
}

async function tuples(saver: PostgresSaver | PgThreadSaver, threadId: string): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) out.push(tuple);
  return out;
}

async function blobBytes(schema: string, threadId: string): Promise<number> {
  const { rows } = await db.pool.query(`SELECT coalesce(sum(octet_length(blob)), 0)::int AS n FROM "${schema}".checkpoint_blobs WHERE thread_id = $1`, [threadId]);
  return rows[0].n;
}

async function messageRows(threadId: string): Promise<{ count: number; bytes: number }> {
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS count, coalesce(sum(octet_length(message::text)), 0)::int AS bytes FROM wrapped.thread_messages WHERE thread_id = $1`,
    [threadId],
  );
  return rows[0];
}

describe('PgThreadSaver against the plain PostgresSaver', () => {
  const thread = 'conversation-1';
  const steps = conversation(thread, 30);
  const growth = { plain: [] as number[], wrappedBlobs: [] as number[], wrappedAll: [] as number[] };

  it('stores 30 steps; per step, the wrapper writes what the step adds while the plain saver rewrites the list', async () => {
    let before = { plain: 0, blobs: 0, messages: 0 };
    for (const [i, step] of steps.entries()) {
      await putBoth(step);
      // Pending writes of the step that produced the next checkpoint (one task writes the new messages).
      const next = steps[i + 1];
      if (next) {
        const config = { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: step.checkpoint.id } };
        const writes: Array<[string, unknown]> = [['messages', added(i + 2)], ['counter', i + 2]];
        for (const saver of [plain, wrapped]) await saver.putWrites(config, writes, `task-${i + 2}`);
      }
      const now = { plain: await blobBytes('plain', thread), blobs: await blobBytes('wrapped', thread), messages: (await messageRows(thread)).bytes };
      growth.plain.push(now.plain - before.plain);
      growth.wrappedBlobs.push(now.blobs - before.blobs);
      growth.wrappedAll.push(now.blobs + now.messages - before.blobs - before.messages);
      before = now;
    }
    console.log(
      `bytes written per step (steps 1, 2, 10, 29, 30): plain blobs ${[0, 1, 9, 28, 29].map((i) => growth.plain[i]).join(' / ')}; ` +
        `wrapper blobs ${[0, 1, 9, 28, 29].map((i) => growth.wrappedBlobs[i]).join(' / ')}; ` +
        `wrapper blobs + messages ${[0, 1, 9, 28, 29].map((i) => growth.wrappedAll[i]).join(' / ')}`,
    );
    // The library's blob per step stays a few dozen bytes (the marker and the counter) however long the list is.
    expect(Math.max(...growth.wrappedBlobs)).toBeLessThan(120);
    // With the messages the step adds, the wrapper's step 30 costs what step 2 cost (same-sized additions).
    expect(growth.wrappedAll[29]).toBeLessThan(growth.wrappedAll[1]! * 1.2);
    expect(Math.max(...growth.wrappedAll.slice(10))).toBeLessThan(Math.max(...growth.wrappedAll.slice(0, 4)) * 1.5);
    // The plain saver writes the whole list again: step 30 costs about fifteen times step 2.
    expect(growth.plain[29]).toBeGreaterThan(growth.plain[1]! * 10);
    // Each message stored once: 2 per step, plus the replacement at step 12, none for step 15 (list unchanged).
    expect((await messageRows(thread)).count).toBe(29 * 2 + 1);
    // On disk (TOAST compression, indexes and page overhead included), after only 30 steps: the plain saver's blobs
    // against the wrapper's blobs plus its message rows.
    const { rows: sizes } = await db.pool.query(
      `SELECT n.nspname || '.' || c.relname AS name, pg_total_relation_size(c.oid)::int AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('plain', 'wrapped') AND c.relname IN ('checkpoint_blobs', 'thread_messages')`,
    );
    const disk = Object.fromEntries(sizes.map((r) => [r.name as string, r.bytes as number]));
    console.log(`on disk after 30 steps: ${JSON.stringify(disk)}`);
    expect(disk['plain.checkpoint_blobs']).toBeGreaterThan(2 * (disk['wrapped.checkpoint_blobs']! + disk['wrapped.thread_messages']!));
  });

  it('reads every checkpoint back as the plain saver does (by id, newest, list, before, limit, filter)', async () => {
    for (const step of steps) {
      const config = { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: step.checkpoint.id } };
      const [p, w] = [await plain.getTuple(config), await wrapped.getTuple(config)];
      expect(p).toBeDefined();
      expect(w).toStrictEqual(p);
    }
    const latest = { configurable: { thread_id: thread } };
    expect(await wrapped.getTuple(latest)).toStrictEqual(await plain.getTuple(latest));
    expect((await wrapped.getTuple(latest))!.pendingWrites).toEqual([]);
    const withWrites = { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: checkpointId(29) } };
    expect((await wrapped.getTuple(withWrites))!.pendingWrites).toHaveLength(2);
    const all = await tuples(wrapped, thread);
    expect(all).toHaveLength(30);
    expect(all).toStrictEqual(await tuples(plain, thread));
    // The list is what was put: the replacement and the removal are there, the unchanged step reads its parent's list.
    const newest = all[0]!.checkpoint.channel_values.messages as BaseMessage[];
    expect(newest).toHaveLength(29 * 2 - 1);
    expect(newest.find((m) => m.id === 'r4')!.content).toMatch(/^訂正: 曇り ☁️/);
    expect(newest.some((m) => m.id === 'h7')).toBe(false);
    expect(newest[0]).toBeInstanceOf(HumanMessage);
    expect((newest[1] as AIMessage).tool_calls?.[0]?.args).toEqual({ city: '東京', note: '👩🏽‍💻 1' });
    expect(newest[2]).toBeInstanceOf(ToolMessage);
    // A NUL and a lone surrogate (untrusted model output) come back as the plain saver gives them.
    expect(String(newest.find((m) => m.id === 'r6')!.content)).toContain('NUL:\u0000 lone:');
    for (const options of [{ limit: 5 }, { before: { configurable: { checkpoint_id: checkpointId(20) } }, limit: 3 }, { filter: { step: 15 } }]) {
      const collect = async (saver: PostgresSaver | PgThreadSaver) => {
        const out: CheckpointTuple[] = [];
        for await (const t of saver.list({ configurable: { thread_id: thread } }, options)) out.push(t);
        return out;
      };
      const w = await collect(wrapped);
      expect(w.length).toBeGreaterThan(0);
      expect(w).toStrictEqual(await collect(plain));
    }
  });

  it('reads the same from a fresh instance (another process), which continues the thread storing only new messages', async () => {
    const other = new PgThreadSaver(db.pool, { schema: 'wrapped' });
    expect(await tuples(other, thread)).toStrictEqual(await tuples(plain, thread));
    // Continue from the newest checkpoint as a run would: the list read back, plus one message.
    const latest = (await other.getTuple({ configurable: { thread_id: thread } }))!;
    const messages = messagesStateReducer(latest.checkpoint.channel_values.messages as BaseMessage[], [
      new HumanMessage({ id: 'h31', content: 'もう一度 🔁' }),
    ]) as BaseMessage[];
    const step: Step = {
      checkpoint: {
        ...latest.checkpoint,
        id: checkpointId(31),
        channel_values: { messages, counter: 31 },
        channel_versions: { messages: 30, counter: 31 },
      },
      metadata: { source: 'loop', step: 31, parents: {} },
      config: latest.config,
      newVersions: { messages: 30, counter: 31 },
    };
    const rowsBefore = (await messageRows(thread)).count;
    await plain.put(step.config, step.checkpoint, step.metadata, step.newVersions);
    await other.put(step.config, step.checkpoint, step.metadata, step.newVersions);
    expect((await messageRows(thread)).count).toBe(rowsBefore + 1);
    expect(await wrapped.getTuple({ configurable: { thread_id: thread } })).toStrictEqual(await plain.getTuple({ configurable: { thread_id: thread } }));
  });

  it('keeps a fork: a checkpoint whose parent is an older one reads its own list; the branch it left is unchanged', async () => {
    const base = steps[9]!.checkpoint; // step 10
    const messages = messagesStateReducer(base.channel_values.messages as BaseMessage[], [new HumanMessage({ id: 'fork-1', content: '別の道 🌿' })]) as BaseMessage[];
    // A version no other checkpoint of the thread used: the library keeps the first blob of a (channel, version).
    const fork: Step = {
      checkpoint: { ...base, id: checkpointId(100), channel_values: { messages, counter: 100 }, channel_versions: { messages: 1000, counter: 1000 } },
      metadata: { source: 'update', step: 11, parents: {} },
      config: { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: base.id } },
      newVersions: { messages: 1000, counter: 1000 },
    };
    await putBoth(fork);
    const config = { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: checkpointId(100) } };
    const w = (await wrapped.getTuple(config))!;
    expect(w).toStrictEqual(await plain.getTuple(config));
    expect(w.parentConfig?.configurable?.checkpoint_id).toBe(base.id);
    expect((w.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.id)).toEqual([...(base.channel_values.messages as BaseMessage[]).map((m) => m.id), 'fork-1']);
    expect(await tuples(wrapped, thread)).toStrictEqual(await tuples(plain, thread));
  });

  it('stores an overwritten list (REMOVE_ALL_MESSAGES) as new rows and reads it back equal', async () => {
    const t = 'overwritten';
    const first = conversation(t, 4);
    for (const step of first) await putBoth(step);
    const last = first[3]!.checkpoint;
    const messages = messagesStateReducer(last.channel_values.messages as BaseMessage[], [
      new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
      new AIMessage({ id: 'summary', content: '要約 📝' }),
      new HumanMessage({ id: 'h1', content: '質問 1 again' }),
    ]) as BaseMessage[];
    await putBoth({
      checkpoint: { ...last, id: checkpointId(5), channel_values: { messages, counter: 5 }, channel_versions: { messages: 5, counter: 5 } },
      metadata: { source: 'loop', step: 5, parents: {} },
      config: { configurable: { thread_id: t, checkpoint_ns: '', checkpoint_id: last.id } },
      newVersions: { messages: 5, counter: 5 },
    });
    const all = await tuples(wrapped, t);
    expect(all).toStrictEqual(await tuples(plain, t));
    expect((all[0]!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.id)).toEqual(['summary', 'h1']);
    expect((await messageRows(t)).count).toBe(4 * 2 + 2);
  });

  it('hands the library a marker, not the list', async () => {
    const { rows } = await db.pool.query(`SELECT blob FROM wrapped.checkpoint_blobs WHERE thread_id = $1 AND channel = 'messages' ORDER BY version::int DESC LIMIT 1`, [
      thread,
    ]);
    expect(JSON.parse(Buffer.from(rows[0].blob).toString('utf8'))).toHaveProperty(MARKER_KEY);
  });
});

describe('threads', () => {
  it('two threads never see each other’s messages, even when the same message objects go into both', async () => {
    const shared = new HumanMessage({ id: 'same', content: '共通 🤝' });
    const a = conversation('thread-a', 6);
    const b = conversation('thread-b', 6).map((s) => {
      const messages = [shared, ...(s.checkpoint.channel_values.messages as BaseMessage[]).map((m) => new AIMessage({ id: `b-${m.id}`, content: `B ${String(m.content)}` }))];
      return { ...s, checkpoint: { ...s.checkpoint, channel_values: { ...s.checkpoint.channel_values, messages } } };
    });
    a.forEach((s) => (s.checkpoint.channel_values.messages = [shared, ...(s.checkpoint.channel_values.messages as BaseMessage[])]));
    for (let i = 0; i < 6; i++) {
      await putBoth(a[i]!);
      await putBoth(b[i]!);
    }
    for (const t of ['thread-a', 'thread-b']) expect(await tuples(wrapped, t)).toStrictEqual(await tuples(plain, t));
    const ids = async (t: string) => ((await wrapped.getTuple({ configurable: { thread_id: t } }))!.checkpoint.channel_values.messages as BaseMessage[]).map((m) => m.id);
    expect((await ids('thread-a')).some((id) => id?.startsWith('b-'))).toBe(false);
    expect((await ids('thread-b')).slice(1).every((id) => id?.startsWith('b-'))).toBe(true);
    // Each thread stored the shared message in its own rows.
    const { rows } = await db.pool.query(`SELECT thread_id, count(*)::int AS n FROM wrapped.thread_messages WHERE message::text LIKE '%共通%' GROUP BY 1 ORDER BY 1`);
    expect(rows).toEqual([
      { thread_id: 'thread-a', n: 1 },
      { thread_id: 'thread-b', n: 1 },
    ]);
  });

  it('deleteThread removes the thread’s checkpoints and messages, and only that thread’s', async () => {
    for (const step of conversation('doomed', 5)) await putBoth(step);
    for (const step of conversation('kept', 3)) await putBoth(step);
    expect((await messageRows('doomed')).count).toBe(10);
    await wrapped.deleteThread('doomed');
    await plain.deleteThread('doomed');
    expect(await wrapped.getTuple({ configurable: { thread_id: 'doomed' } })).toBeUndefined();
    expect(await tuples(wrapped, 'doomed')).toEqual([]);
    expect((await messageRows('doomed')).count).toBe(0);
    expect((await messageRows('kept')).count).toBe(6);
    expect(await tuples(wrapped, 'kept')).toStrictEqual(await tuples(plain, 'kept'));
    // The thread can start again: the same message objects are stored anew, not referred to by dead positions.
    const again = conversation('doomed', 2);
    for (const step of again) await putBoth(step);
    expect(await tuples(wrapped, 'doomed')).toStrictEqual(await tuples(plain, 'doomed'));
    expect((await messageRows('doomed')).count).toBe(4);
  });

  it('numbers messages without collisions when two instances (processes) put on one thread at once', async () => {
    const [one, two] = [new PgThreadSaver(db.pool, { schema: 'wrapped' }), new PgThreadSaver(db.pool, { schema: 'wrapped' })];
    const t = 'contended';
    const steps = conversation(t, 8);
    // Two branches of one thread, each put by its own instance, interleaved: positions come from one counter.
    const branch = (step: Step, tag: string): Step => ({
      ...step,
      checkpoint: {
        ...step.checkpoint,
        id: `${step.checkpoint.id}-${tag}`,
        channel_values: {
          ...step.checkpoint.channel_values,
          messages: (step.checkpoint.channel_values.messages as BaseMessage[]).map((m) => new HumanMessage({ id: `${tag}-${m.id}`, content: `${tag} ${String(m.content)}` })),
        },
      },
      newVersions: Object.fromEntries(Object.entries(step.newVersions).map(([k, v]) => [k, v * 10 + (tag === 'x' ? 1 : 2)])),
      config: { configurable: { thread_id: t, checkpoint_ns: '' } },
    });
    for (const step of steps) {
      const [x, y] = [branch(step, 'x'), branch(step, 'y')];
      await Promise.all([one.put(x.config, x.checkpoint, x.metadata, x.newVersions), two.put(y.config, y.checkpoint, y.metadata, y.newVersions)]);
      await putBoth(x, [plain]);
      await putBoth(y, [plain]);
    }
    expect(await tuples(wrapped, t)).toStrictEqual(await tuples(plain, t));
    const { rows } = await db.pool.query(`SELECT min(position)::int AS lo, max(position)::int AS hi, count(*)::int AS n FROM wrapped.thread_messages WHERE thread_id = $1`, [t]);
    expect(rows[0]).toEqual({ lo: 1, hi: rows[0].n, n: rows[0].n });
  });

  it('setup() twice and from several instances at once is harmless', async () => {
    await Promise.all([0, 1, 2].map(() => new PgThreadSaver(db.pool, { schema: 'wrapped' }).setup()));
    const fresh = new PgThreadSaver(db.pool, { schema: 'fresh' });
    const other = new PgThreadSaver(db.pool, { schema: 'fresh' });
    await Promise.all([fresh.setup(), other.setup()]);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'fresh'`);
    expect(rows[0].n).toBe(5); // the library's four tables and thread_messages
  });
});

describe('a real LangGraph graph', () => {
  function graph(checkpointer: PostgresSaver | PgThreadSaver) {
    return new StateGraph(MessagesAnnotation)
      .addNode('reply', (state) => ({
        messages: [new AIMessage({ id: `ai-${state.messages.length}`, content: `返事 ${state.messages.length} 🤖: ${String(state.messages.at(-1)?.content)}` })],
      }))
      .addEdge(START, 'reply')
      .addEdge('reply', END)
      .compile({ checkpointer });
  }

  it('gives the same state as the plain saver after several invocations on one thread', async () => {
    const [p, w] = [graph(plain), graph(wrapped)];
    const config = { configurable: { thread_id: 'graph-thread' } };
    for (let i = 0; i < 5; i++) {
      const input = { messages: [new HumanMessage({ id: `user-${i}`, content: `こんにちは ${i} 👋` })] };
      const [rp, rw] = [await p.invoke(input, config), await w.invoke(input, config)];
      expect(rw).toStrictEqual(rp);
    }
    // Checkpoint ids, times and the task ids derived from them differ between the two runs; the rest must not.
    const comparable = (s: Awaited<ReturnType<typeof p.getState>>) => ({
      values: s.values,
      next: s.next,
      tasks: s.tasks.map(({ id: _id, ...task }) => task),
      metadata: s.metadata,
    });
    const [sp, sw] = [await p.getState(config), await w.getState(config)];
    expect(comparable(sw)).toStrictEqual(comparable(sp));
    expect((sw.values.messages as BaseMessage[]).map((m) => m.id)).toEqual(Array.from({ length: 5 }, (_, i) => [`user-${i}`, `ai-${2 * i + 1}`]).flat());
    const history = async (g: typeof p) => {
      const out = [];
      for await (const s of g.getStateHistory(config)) out.push(comparable(s));
      return out;
    };
    const [hp, hw] = [await history(p), await history(w)];
    expect(hw.length).toBeGreaterThan(5);
    expect(hw).toStrictEqual(hp);
    // Ten messages, each stored once.
    expect((await messageRows('graph-thread')).count).toBe(10);

    // Another process continues the thread, and a fork (updateState on an older checkpoint) reads its own list.
    const later = graph(new PgThreadSaver(db.pool, { schema: 'wrapped' }));
    const input = { messages: [new HumanMessage({ id: 'user-5', content: 'また 🙌' })] };
    expect(await later.invoke(input, config)).toStrictEqual(await p.invoke(input, config));
    expect((await messageRows('graph-thread')).count).toBe(12);
    const older = async (g: typeof p) => {
      for await (const s of g.getStateHistory(config)) if ((s.values.messages as BaseMessage[] | undefined)?.length === 4 && s.next.length === 0) return s.config;
      throw new Error('no state with four messages');
    };
    const fork = { messages: [new HumanMessage({ id: 'fork', content: '分岐 🌱' })] };
    const [fp, fw] = [await p.updateState(await older(p), fork), await later.updateState(await older(later), fork)];
    const [sfp, sfw] = [await p.getState(fp), await later.getState(fw)];
    expect(comparable(sfw)).toStrictEqual(comparable(sfp));
    expect((sfw.values.messages as BaseMessage[]).map((m) => m.id)).toEqual(['user-0', 'ai-1', 'user-1', 'ai-3', 'fork']);
    expect(comparable(await later.getState(config))).toStrictEqual(comparable(await p.getState(config)));
  });
});
