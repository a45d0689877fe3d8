import crypto from 'node:crypto';
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closeCheckpointer, getCheckpointer } from '@/server/agents/checkpointer';
import { closeDb, schema, writeTx } from '@/server/db';
import { receiptsOf } from '@/server/agents/receipts/ledger';
import { receiptStampOf } from '@/server/agents/receipts/stamp';
import { recoverRuns } from '@/server/agents/recovery';
import { start, wait } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, finished, until } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';

describe('receipts survive a crash and a redo', () => {
  it('a run stopped mid-way and continued after recovery numbers r1…r5 with no gap and no double', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const script = [1, 2, 3, 4, 5].map((n) => `/call calculator {"expression":"${n}*10"}`).concat('/sleep 100', '/reply all done').join('\n');
    const { run } = await start(ann.id, conversation.id, { text: script }, { idempotencyKey: crypto.randomUUID() });
    // Two tool steps saved, the third model call sleeping: stop the process's work as a shutdown does.
    await until(async () => ofType(await eventsOf(run.id), 'step.tool').length >= 2, 10_000);
    await suspendActiveRuns(5_000);
    const before = await receiptsOf(run.id);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.map((r) => r.id)).toEqual(before.map((_, i) => `r${i + 1}`));

    resumeRunLaunches();
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await finished(run.id, 15_000)).status).toBe('success');

    // What must not happen: a receipt lost, repeated or renumbered by the redo.
    const ledger = await receiptsOf(run.id);
    expect(ledger).toEqual(['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => ({ id, tool: 'calculator', status: 'ok' })));
    expect(ledger.slice(0, before.length)).toEqual(before);
    const tools = (await readThread(conversation.id)).messages.filter((m): m is ToolMessage => m.getType() === 'tool');
    expect(tools.map((m) => receiptStampOf(m))).toEqual(ledger.map((r) => ({ id: r.id, runId: run.id })));
    // Each step.tool event carries the receipt of the message it records.
    expect(ofType(await eventsOf(run.id), 'step.tool').map((e) => [e.toolCallId, e.receipt])).toEqual(tools.map((m) => [m.tool_call_id, receiptStampOf(m)!.id]));
  }, 30_000);
});

describe('a tool step lost in a crash is redone with the same receipts', () => {
  it('the process dies after the second tool ran but before its step was saved: after recovery r1, r2, r3 — none doubled or skipped', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'] });
    const saver = getCheckpointer();
    const putWrites = saver.putWrites.bind(saver);
    const put = saver.put.bind(saver);
    let toolSteps = 0;
    let dead = false;
    const hasToolResult = (value: unknown) => Array.isArray(value) && value.some((m: BaseMessage) => typeof m?.getType === 'function' && m.getType() === 'tool');
    const never = new Promise<never>(() => {});
    // From the second tool step's writes on, nothing of this thread reaches the database: the process is dying.
    saver.putWrites = (config, writes, taskId, taskPath) => {
      if (config.configurable?.thread_id !== conversation.id) return putWrites(config, writes, taskId, taskPath);
      if (!dead && writes.some(([channel, value]) => channel === 'messages' && hasToolResult(value)) && ++toolSteps === 2) dead = true;
      return dead ? never : putWrites(config, writes, taskId, taskPath);
    };
    saver.put = (config, ...rest) => (dead && config.configurable?.thread_id === conversation.id ? never : put(config, ...rest));
    const script = ['1+1', '2+2', '3+3'].map((e) => `/call calculator {"expression":"${e}"}`).concat('/reply done').join('\n');
    const { run } = await start(ann.id, conversation.id, { text: script }, { idempotencyKey: crypto.randomUUID() });
    await until(() => dead, 10_000);
    // The process stops: its in-memory step journal is dropped with the unsaved step (suspension does exactly this).
    await suspendActiveRuns(2_000);
    saver.putWrites = putWrites;
    saver.put = put;
    expect((await receiptsOf(run.id)).map((r) => r.id)).toEqual(['r1']);

    await writeTx(async (tx) => {
      await tx.update(schema.runs).set({ status: 'running', error: null, finishedAt: null }).where(eq(schema.runs.id, run.id));
    });
    closeCheckpointer();
    await closeDb();
    resumeRunLaunches();
    expect(await recoverRuns()).toEqual([{ runId: run.id, action: 'continued' }]);
    expect((await wait(run.id, 10_000))?.status).toBe('success');
    const ledger = await receiptsOf(run.id);
    expect(ledger).toEqual(['r1', 'r2', 'r3'].map((id) => ({ id, tool: 'calculator', status: 'ok' })));
    const tools = (await readThread(conversation.id)).messages.filter((m): m is ToolMessage => m.getType() === 'tool');
    expect(tools.map((m) => [m.content, receiptStampOf(m)?.id])).toEqual([
      ['2', 'r1'],
      ['4', 'r2'],
      ['6', 'r3'],
    ]);
  }, 30_000);
});
