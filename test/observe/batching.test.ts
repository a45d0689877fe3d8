// test:pg skip: counts checkpoints.db's own transactions (on Postgres a step's events commit just before its checkpoint, ADR 033 §7; test-pg/checkpoint-app.test.ts covers them there)
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { getCheckpointer } from '@/server/agents/checkpointer';
import type { ThreadSaver } from '@/server/agents/checkpoint/saver';
import { pruneThread } from '@/server/agents/checkpoint/prune';
import { runEventStatements } from '@/server/agents/observe/record';
import { readThread } from '@/server/agents/thread';
import type { AIMessage, ToolMessage } from '@langchain/core/messages';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, expectDense, ofType, typesOf } from './helpers';

type Insert = { tx: number; type: string; inTransaction: boolean };

/**
 * Watch the checkpoint database: number each transaction it opens (db.transaction, the only way the saver and the
 * event writer open one) and note, for each run event inserted, the transaction it was inserted in.
 */
function watchEventWrites() {
  const db = (getCheckpointer() as ThreadSaver).db;
  const statements = runEventStatements(db);
  const insert = statements.insert;
  let opened = 0;
  let current = 0;
  const inserts: Insert[] = [];
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) =>
    transaction((...args: unknown[]) => {
      const outer = current;
      current = ++opened;
      try {
        return fn(...args);
      } finally {
        current = outer;
      }
    })) as Database.Database['transaction'];
  statements.insert = {
    run: (...args: unknown[]) => {
      inserts.push({ tx: current, type: String(args[3]), inTransaction: db.inTransaction });
      return (insert.run as (...a: unknown[]) => Database.RunResult)(...args);
    },
  } as unknown as Database.Statement;
  return {
    inserts,
    /** Event types grouped by the transaction that wrote them, in order. */
    groups(): string[][] {
      const out: Array<{ tx: number; types: string[] }> = [];
      for (const i of inserts) {
        const last = out.at(-1);
        if (last && last.tx === i.tx) last.types.push(i.type);
        else out.push({ tx: i.tx, types: [i.type] });
      }
      return out.map((g) => g.types);
    },
    restore() {
      delete (db as { transaction?: unknown }).transaction;
      statements.insert = insert;
    },
  };
}

let watch: ReturnType<typeof watchEventWrites> | undefined;
afterEach(async () => {
  watch?.restore();
  watch = undefined;
});

describe('run event writes are batched: one transaction per graph step', () => {
  it('each step’s events are written together, inside the transaction that saves the step, never one per event', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    watch = watchEventWrites();
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/call current_time {}\n/reply done');
    expect(run.status).toBe('success');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(watch.inserts.every((i) => i.inTransaction && i.tx > 0)).toBe(true);
    expect(watch.groups()).toEqual([
      ['run.started'], // with the graph's first step: the checkpoint that saves the run's input
      ['model.call', 'step.assistant'],
      ['step.tool'],
      ['model.call', 'step.assistant'],
      ['step.tool'],
      ['model.call', 'step.assistant'],
      ['run.finished'], // outside any step, once per run
    ]);
    // The input step, five graph steps and the end: seven transactions carried the eleven events.
    expect(new Set(watch.inserts.map((i) => i.tx)).size).toBe(7);
    expect(watch.inserts.map((i) => i.type)).toEqual(typesOf(events));
  });

  it('a multi-tool turn (scripted /also): one step.assistant with both calls, then every result in the order asked, in one transaction', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    watch = watchEventWrites();
    const run = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/also current_time {}\n/also calculator {"expression":"1/0"}\n/reply all three');
    expect(run.status).toBe('success');
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'step.tool', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    const { messages } = await readThread(conversation.id);
    const asked = (messages[1] as AIMessage).tool_calls!;
    expect(asked.map((c) => c.name)).toEqual(['calculator', 'current_time', 'calculator']);
    expect(ofType(events, 'step.assistant')[0]!.toolCalls.map((c) => [c.id, c.name])).toEqual(asked.map((c) => [c.id, c.name]));
    const results = messages.filter((m): m is ToolMessage => m.getType() === 'tool');
    expect(ofType(events, 'step.tool').map((t) => [t.toolCallId, t.tool, t.result])).toEqual(results.map((m) => [m.tool_call_id, m.name, m.content]));
    expect(ofType(events, 'step.tool').map((t) => t.toolCallId)).toEqual(asked.map((c) => c.id));
    expect(ofType(events, 'step.tool').map((t) => t.receipt)).toEqual(['r1', 'r2', 'r3']);
    expect(watch.groups()).toEqual([
      ['run.started'],
      ['model.call', 'step.assistant'],
      ['step.tool', 'step.tool', 'step.tool'],
      ['model.call', 'step.assistant'],
      ['run.finished'],
    ]);
  });
});

describe('events are kept as long as the run', () => {
  it('pruning the thread’s superseded checkpoints after later runs leaves every earlier run’s events as they were', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/reply 42');
    const before = await eventsOf(first.id);
    expect(before.length).toBeGreaterThan(4);
    for (const text of ['again', 'and again']) expect((await send(ann.id, conversation.id, text)).status).toBe('success');
    // The thread was pruned to its newest checkpoint when each run settled; then once more by hand.
    const saver = getCheckpointer() as ThreadSaver;
    pruneThread(saver, conversation.id);
    const checkpoints = saver.db.prepare('SELECT count(*) AS n FROM thread_checkpoints WHERE thread_id = ?').get(conversation.id) as { n: number };
    expect(checkpoints.n).toBe(1);
    expect(await eventsOf(first.id)).toEqual(before);
  });
});
