import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgThreadSaver } from '@/server/agents/checkpoint/pg-saver';
import { CHECKPOINT_SCHEMA, hasThreadMessages, pgThreadMessages } from '@/scripts/crash/pg-threads';
import { freshDatabase, type FreshDatabase } from './support/database';

// The crash test reads threads from Postgres with a reader of its own (scripts/crash/pg-threads.ts); the server's
// saver (PgThreadSaver, ADR 033 §7) is the oracle: what a graph's state holds is what the reader returns.

let db: FreshDatabase;
let saver: PgThreadSaver;

beforeAll(async () => {
  db = await freshDatabase();
  saver = new PgThreadSaver(db.pool, { schema: CHECKPOINT_SCHEMA });
});

afterAll(async () => {
  await db?.drop();
});

const graph = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [new AIMessage({ id: `ai-${state.messages.length}`, content: `reply ${state.messages.length} 🤖` })] }))
    .addEdge(START, 'reply')
    .addEdge('reply', END)
    .compile({ checkpointer: saver });

const summary = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.id, m.content, m.additional_kwargs]);

describe('crash test: threads read from Postgres', () => {
  it('knows whether the deployment keeps threads in Postgres', async () => {
    expect(await hasThreadMessages(db.pool)).toBe(false);
    await saver.setup();
    expect(await hasThreadMessages(db.pool)).toBe(true);
  });

  it('reads the newest message list the saver holds, with each message’s metadata', async () => {
    const g = graph();
    const config = { configurable: { thread_id: 'crash-thread' } };
    for (let i = 0; i < 3; i++) {
      await g.invoke({ messages: [new HumanMessage({ id: `user-${i}`, content: `request ${i}`, additional_kwargs: { ensemble: { jobId: `job-${i}`, kind: 'team_request' } } })] }, config);
    }
    const state = (await g.getState(config)).values.messages as BaseMessage[];
    const read = await pgThreadMessages(db.pool, 'crash-thread');
    expect(read).toHaveLength(6);
    expect(summary(read)).toEqual(summary(state));
    expect(read[0]!.additional_kwargs).toEqual({ ensemble: { jobId: 'job-0', kind: 'team_request' } });
  });

  it('follows the newest checkpoint, not every stored row, after a message is removed', async () => {
    const g = graph();
    const config = { configurable: { thread_id: 'crash-removed' } };
    await g.invoke({ messages: [new HumanMessage({ id: 'keep', content: 'a' })] }, config);
    await g.invoke({ messages: [new HumanMessage({ id: 'drop', content: 'b' })] }, config);
    await g.updateState(config, { messages: [new RemoveMessage({ id: 'drop' })] });
    const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from "${CHECKPOINT_SCHEMA}".thread_messages where thread_id = 'crash-removed'`);
    expect(rows[0]!.n).toBe(4);
    const read = await pgThreadMessages(db.pool, 'crash-removed');
    expect(read.map((m) => m.id)).toEqual(['keep', 'ai-1', 'ai-3']);
    expect(summary(read)).toEqual(summary((await g.getState(config)).values.messages as BaseMessage[]));
  });

  it('reads a thread without checkpoints as empty, and refuses a checkpoint naming a missing message', async () => {
    expect(await pgThreadMessages(db.pool, 'no-such-thread')).toEqual([]);
    await db.pool.query(`delete from "${CHECKPOINT_SCHEMA}".thread_messages where thread_id = 'crash-thread' and position = 2`);
    await expect(pgThreadMessages(db.pool, 'crash-thread')).rejects.toThrow(/message position 2 is listed but not stored/);
  });
});
