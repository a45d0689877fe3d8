import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { AIMessage, HumanMessage, RemoveMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { closeCheckpointer, getCheckpointer, maintainSettledThread } from '@/server/agents/checkpointer';
import { prunePgThread } from '@/server/agents/checkpoint/pg-prune';
import { PgThreadSaver } from '@/server/agents/checkpoint/pg-saver';
import { pgCheckpointSide } from '@/server/agents/checkpoint/pg-side';
import { CHECKPOINT_SCHEMA } from '@/server/agents/checkpoint/side-tables';
import { compactionsOf } from '@/server/agents/compaction/store';
import { receiptsOf } from '@/server/agents/receipts/ledger';
import { readThread } from '@/server/agents/thread';
import { eq } from 'drizzle-orm';
import { databaseEngine, schema, writeTx } from '@/server/db';
import { appPgPool } from '@/server/db/pg-pool';
import { recoverRuns } from '@/server/agents/recovery';
import { start } from '@/server/agents/runs';
import { conversationWith, finished, send, until } from '../test/agents/helpers';
import { GATE_GROUP, registerGateTool } from '../test/support/gate-tool';
import { filler } from '../test/compaction/helpers';
import { eventsOf, expectDense, typesOf } from '../test/observe/helpers';
import { makeUser } from '../test/support/users';
import { freshDatabase } from './support/database';

// ADR 033 §7 wired: with DATABASE_URL=postgres://… (test/support/setup.ts gives this file a database of its own) the
// app's checkpointer is PgThreadSaver in the `langgraph` schema, and run events, compactions and the step journal
// live beside it. Nothing of a conversation is left in DATA_DIR.

const gate = registerGateTool();
const S = `"${CHECKPOINT_SCHEMA}"`;
const pool = () => appPgPool()!;
async function count(sql: string, params: unknown[]): Promise<number> {
  return Number((await pool().query<{ n: string }>(sql, params)).rows[0]!.n);
}
const checkpointsOf = (threadId: string) => count(`SELECT count(*) AS n FROM ${S}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''`, [threadId]);
const messageRowsOf = (threadId: string) => count(`SELECT count(*) AS n FROM ${S}.thread_messages WHERE thread_id = $1`, [threadId]);
/** Blobs of the thread that no checkpoint names (what pruning removes). */
const unnamedBlobsOf = (threadId: string) =>
  count(
    `SELECT count(*) AS n FROM ${S}.checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
       SELECT 1 FROM ${S}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
    [threadId],
  );

describe('a conversation on Postgres', () => {
  it('keeps its thread, run events, receipts and compactions in Postgres, prunes the settled thread, and writes no checkpoints.db', async () => {
    expect(databaseEngine()).toBe('postgres');
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], compactAtTokens: 1_000 });
    const first = await send(ann.id, conversation.id, '/call calculator {"expression":"6*7"}\n/reply 42');
    expect(first).toMatchObject({ status: 'success', modelCalls: 2 });

    const events = await eventsOf(first.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    expect(await count(`SELECT count(*) AS n FROM ${S}.run_events WHERE run_id = $1`, [first.id])).toBe(events.length);
    expect(await receiptsOf(first.id)).toEqual([{ id: 'r1', tool: 'calculator', status: 'ok' }]);

    // Over the agent's threshold: the model gets a summary instead of the older messages (one compaction record).
    expect((await send(ann.id, conversation.id, filler(400, 'hello'))).status).toBe('success');
    const third = await send(ann.id, conversation.id, filler(700));
    expect(third.status).toBe('success');
    expect(typesOf(await eventsOf(third.id))).toContain('compaction');
    const [record] = await compactionsOf(conversation.id);
    expect(record).toMatchObject({ threadId: conversation.id, runId: third.id });
    expect(await count(`SELECT count(*) AS n FROM ${S}.thread_compactions WHERE thread_id = $1`, [conversation.id])).toBe(1);

    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai', 'human', 'ai', 'human', 'ai']);
    // Each settled run pruned the thread to its newest checkpoint, with only the blobs and message rows it names.
    await until(async () => (await checkpointsOf(conversation.id)) === 1, 5_000);
    expect(await unnamedBlobsOf(conversation.id)).toBe(0);
    expect(await messageRowsOf(conversation.id)).toBe(messages.length);

    const dataDir = process.env.DATA_DIR!;
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('checkpoints.db'))).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'ensemble.db'))).toBe(false);
  });

  it('continues from a fresh saver (another process): the thread reads back the same, and only the new messages are stored', async () => {
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(bob.id, { name: 'Echo' });
    expect((await send(bob.id, conversation.id, 'one')).status).toBe('success');
    expect((await send(bob.id, conversation.id, 'two')).status).toBe('success');
    const before = (await readThread(conversation.id)).messages;
    const rows = await messageRowsOf(conversation.id);
    expect(rows).toBe(4);

    // Another process: its own pool and saver, no memory of this thread.
    const other = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    try {
      const saver = new PgThreadSaver(other, { schema: CHECKPOINT_SCHEMA, side: pgCheckpointSide });
      const tuple = await saver.getTuple({ configurable: { thread_id: conversation.id } });
      expect((tuple!.checkpoint.channel_values.messages as HumanMessage[]).map((m) => [m.id, m.content])).toEqual(before.map((m) => [m.id, m.content]));
    } finally {
      await other.end();
    }

    closeCheckpointer();
    const third = await send(bob.id, conversation.id, 'three');
    expect(third.status).toBe('success');
    const after = (await readThread(conversation.id)).messages;
    expect(after.map((m) => m.content)).toEqual(['one', 'Echo received: one', 'two', 'Echo received: two', 'three', 'Echo received: three']);
    expect(after.slice(0, 4).map((m) => m.id)).toEqual(before.map((m) => m.id));
    expect(await messageRowsOf(conversation.id)).toBe(rows + 2);
  });

  it('counts a receipt recorded twice (a step redone after a crash between its two commits) once, as its latest record says', async () => {
    const cy = await makeUser('cy');
    const { conversation } = await conversationWith(cy.id, { toolGroups: ['utility'] });
    const run = await send(cy.id, conversation.id, '/call calculator {"expression":"1+1"}\n/call calculator {"expression":"2+2"}\n/reply done');
    expect((await receiptsOf(run.id)).map((r) => r.id)).toEqual(['r1', 'r2']);
    // The redo of the step that made r2 records its event again (here: its status differs, to tell the records apart).
    await pool().query(
      `INSERT INTO ${S}.run_events (run_id, seq, thread_id, type, at, data)
       SELECT run_id, (SELECT max(seq) + 1 FROM ${S}.run_events WHERE run_id = $1), thread_id, type, at, (data::jsonb || '{"status": "error"}')::text
       FROM ${S}.run_events WHERE run_id = $1 AND type = 'step.tool' AND data::json ->> 'receipt' = 'r2'`,
      [run.id],
    );
    expect(await count(`SELECT count(*) AS n FROM ${S}.run_events WHERE run_id = $1 AND type = 'step.tool'`, [run.id])).toBe(3);
    expect(await receiptsOf(run.id)).toEqual([
      { id: 'r1', tool: 'calculator', status: 'ok' },
      { id: 'r2', tool: 'calculator', status: 'error' },
    ]);
  });
});

describe('a step whose checkpoint fails to commit on Postgres', () => {
  it('keeps the events its message rows carried (recorded, never lost); recovery finishes the run and pruning drops the unnamed row', async () => {
    const eve = await makeUser('eve');
    const { conversation } = await conversationWith(eve.id, { name: 'Scribe' });
    const saver = getCheckpointer() as PgThreadSaver;
    const put = saver.inner.put.bind(saver.inner);
    let puts = 0;
    // Checkpoints of a one-turn run: input (step -1), input applied (step 0), model output applied (step 1). The
    // third dies in the library's own transaction, after the wrapper committed its message row and the step's events.
    saver.inner.put = (config, ...rest) => {
      if (config.configurable?.thread_id === conversation.id && ++puts === 3) return Promise.reject(new Error('killed before the checkpoint'));
      return put(config, ...rest);
    };
    try {
      const { run } = await start(eve.id, conversation.id, { text: '/reply written once' }, { idempotencyKey: crypto.randomUUID() });
      expect((await finished(run.id)).status).toBe('error');
      expect(typesOf(await eventsOf(run.id))).toEqual(['run.started', 'model.call', 'step.assistant', 'run.finished']);
      expect((await readThread(conversation.id)).messages.map((m) => m.getType())).toEqual(['human']);
      expect(await messageRowsOf(conversation.id)).toBe(2);

      // What a crash leaves behind: the row still says running; recovery applies the saved writes.
      await writeTx((tx) => tx.update(schema.runs).set({ status: 'running', error: null, finishedAt: null }).where(eq(schema.runs.id, run.id)));
      expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
      expect((await finished(run.id)).status).toBe('success');
    } finally {
      saver.inner.put = put;
    }
    const { messages } = await readThread(conversation.id);
    expect(messages.map((m) => m.content)).toEqual(['/reply written once', 'written once']);
    await until(async () => (await checkpointsOf(conversation.id)) === 1, 5_000);
    expect(await messageRowsOf(conversation.id)).toBe(messages.length);
  });
});

describe('pruning on Postgres', () => {
  it('keeps the newest checkpoint, its writes, the blobs and message rows it names; the thread reads back the same', async () => {
    const saver = getCheckpointer() as PgThreadSaver;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('reply', (state) => ({ messages: [new AIMessage({ id: `a${state.messages.length}`, content: `reply ${state.messages.length}` })] }))
      .addEdge(START, 'reply')
      .addEdge('reply', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'prune-me' } };
    for (let i = 1; i <= 3; i++) await graph.invoke({ messages: [new HumanMessage({ id: `h${i}`, content: `question ${i}` })] }, config);
    // A removal: the newest list no longer names the first message, so its row goes too.
    await graph.updateState(config, { messages: [new RemoveMessage({ id: 'h1' })] });
    const newest = await saver.getTuple(config);
    const kept = newest!.checkpoint.channel_values.messages as AIMessage[];
    expect(kept.map((m) => m.id)).toEqual(['a1', 'h2', 'a3', 'h3', 'a5']);
    expect(await checkpointsOf('prune-me')).toBeGreaterThan(5);
    expect(await unnamedBlobsOf('prune-me')).toBe(0);
    expect(await messageRowsOf('prune-me')).toBe(6);

    const result = await prunePgThread(saver, 'prune-me');
    expect(result.checkpoints).toBeGreaterThan(4);
    expect(result.blobs).toBeGreaterThan(0);
    expect(result.messages).toBe(1);
    expect(await checkpointsOf('prune-me')).toBe(1);
    expect(await unnamedBlobsOf('prune-me')).toBe(0);
    expect(await messageRowsOf('prune-me')).toBe(5);
    expect(await count(`SELECT count(*) AS n FROM ${S}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_id <> $2`, ['prune-me', newest!.checkpoint.id])).toBe(0);
    // As read by this saver and by one that never saw the thread.
    closeCheckpointer();
    for (const reader of [saver, getCheckpointer()]) {
      const tuple = await reader.getTuple(config);
      expect(tuple!.checkpoint).toEqual(newest!.checkpoint);
      expect(tuple!.pendingWrites).toEqual(newest!.pendingWrites);
    }
    // Pruning again changes nothing.
    expect(await prunePgThread(saver, 'prune-me')).toEqual({ checkpoints: 0, writes: 0, messages: 0, blobs: 0 });
  });

  it('leaves a thread whose conversation has a run under way alone (maintainSettledThread)', async () => {
    const dee = await makeUser('dee');
    const { conversation } = await conversationWith(dee.id, { name: 'Holder', toolGroups: [GATE_GROUP] });
    expect((await send(dee.id, conversation.id, 'hello')).status).toBe('success');
    await until(async () => (await checkpointsOf(conversation.id)) === 1, 5_000);
    const { run } = await start(dee.id, conversation.id, { text: '/call hold {}\n/reply held' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => gate.executing === 1, 5_000);
    const during = await checkpointsOf(conversation.id);
    expect(during).toBeGreaterThan(1);
    await maintainSettledThread(conversation.id);
    expect(await checkpointsOf(conversation.id)).toBe(during);
    gate.open();
    expect((await finished(run.id)).status).toBe('success');
    await until(async () => (await checkpointsOf(conversation.id)) === 1, 5_000);
  });
});

describe('the library tables pruning writes to', () => {
  it('have the layout prune SQL expects (columns, kinds, nullability, primary keys)', async () => {
    await (getCheckpointer() as PgThreadSaver).ready();
    const { rows } = await pool().query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = $1 AND table_name IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes') ORDER BY table_name, ordinal_position`,
      [CHECKPOINT_SCHEMA],
    );
    expect(rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === 'YES' ? ' null' : ''}`)).toEqual([
      'checkpoint_blobs.thread_id text',
      'checkpoint_blobs.checkpoint_ns text',
      'checkpoint_blobs.channel text',
      'checkpoint_blobs.version text',
      'checkpoint_blobs.type text',
      'checkpoint_blobs.blob bytea null',
      'checkpoint_writes.thread_id text',
      'checkpoint_writes.checkpoint_ns text',
      'checkpoint_writes.checkpoint_id text',
      'checkpoint_writes.task_id text',
      'checkpoint_writes.idx integer',
      'checkpoint_writes.channel text',
      'checkpoint_writes.type text null',
      'checkpoint_writes.blob bytea',
      'checkpoints.thread_id text',
      'checkpoints.checkpoint_ns text',
      'checkpoints.checkpoint_id text',
      'checkpoints.parent_checkpoint_id text null',
      'checkpoints.type text null',
      'checkpoints.checkpoint jsonb',
      'checkpoints.metadata jsonb',
    ]);
    const keys = await pool().query<{ table_name: string; columns: string }>(
      `SELECT tc.table_name, string_agg(k.column_name, ',' ORDER BY k.ordinal_position) AS columns
       FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage k
         ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
       WHERE tc.table_schema = $1 AND tc.constraint_type = 'PRIMARY KEY' AND tc.table_name IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')
       GROUP BY tc.table_name ORDER BY tc.table_name`,
      [CHECKPOINT_SCHEMA],
    );
    expect(keys.rows).toEqual([
      { table_name: 'checkpoint_blobs', columns: 'thread_id,checkpoint_ns,channel,version' },
      { table_name: 'checkpoint_writes', columns: 'thread_id,checkpoint_ns,checkpoint_id,task_id,idx' },
      { table_name: 'checkpoints', columns: 'thread_id,checkpoint_ns,checkpoint_id' },
    ]);
  });
});

describe('setup', () => {
  it('several savers starting at once on an empty database create every table once', async () => {
    const db = await freshDatabase();
    try {
      const savers = Array.from({ length: 3 }, () => new PgThreadSaver(db.pool, { schema: CHECKPOINT_SCHEMA, side: pgCheckpointSide }));
      await Promise.all(savers.map((s) => s.ready()));
      const { rows } = await db.pool.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [
        CHECKPOINT_SCHEMA,
      ]);
      expect(rows.map((r) => r.table_name)).toEqual(['checkpoint_blobs', 'checkpoint_migrations', 'checkpoint_writes', 'checkpoints', 'run_events', 'thread_compactions', 'thread_messages']);
    } finally {
      await db.drop();
    }
  });
});
