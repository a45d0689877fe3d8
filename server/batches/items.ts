import 'server-only';
import crypto from 'node:crypto';
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { AIMessage } from '@langchain/core/messages';
import { LIMITS } from '@/lib/limits';
import { renderTemplate } from '@/lib/batch-template';
import { truncateText } from '@/lib/text';
import { isRunActive } from '@/lib/types/conversation';
import { currentCluster } from '@/server/cluster/cluster';
import { getDb, schema, writeTx } from '@/server/db';
import type { BatchItem } from '@/server/db/schema';
import { AppError } from '@/server/http/errors';
import { contentText } from '@/server/agents/messages';
import { batchItemParent } from '@/server/agents/conversations';
import { assertConversationQuota } from '@/server/agents/quotas';
import { ConversationBusyError, findRun, resumeRun, startRun, type StartOptions } from '@/server/agents/runs';
import { clarificationAnswer } from '@/server/agents/provenance';
import { readThread } from '@/server/agents/thread';
import { pendingAnswer, type ItemAnswer } from './answer-shape';
import { batchChanged } from './changes';
import { findBatch } from './store';
import { finishBatchIfDone } from './finish';
import { endWaitsOfCancelledBatch } from './waits';

/** The lease of an admitted item: LIMITS.batch.leaseMs unless a test set a shorter one. */
const g = globalThis as unknown as { __ensembleBatchLeaseMs?: number };
export const leaseMs = () => g.__ensembleBatchLeaseMs ?? LIMITS.batch.leaseMs;
/** Tests only: lease admitted items for `ms` (undefined: LIMITS.batch.leaseMs again). */
export function overrideBatchLeaseForTests(ms?: number): void {
  g.__ensembleBatchLeaseMs = ms;
}

/** A launch whose lease was lost before its run was recorded: the run is rolled back and nothing is written. */
class LeaseLostError extends Error {}

/** The run key of an item's run under one lease: a relaunch under the same lease finds the same run. */
export const itemRunKey = (itemId: string, lease: number) => `batch-item:${itemId}:${lease}`;

async function findItem(id: string): Promise<BatchItem | undefined> {
  const [row] = await getDb().select().from(schema.batchItems).where(eq(schema.batchItems.id, id));
  return row;
}

/** Write to an item only while it still holds `lease` and is running: a worker whose lease is gone writes nothing. */
type Tx = Parameters<Parameters<typeof writeTx>[0]>[0];

const held = (id: string, lease: number) =>
  and(eq(schema.batchItems.id, id), eq(schema.batchItems.lease, lease), eq(schema.batchItems.status, 'running'));

/**
 * queued → running under a new lease (the scheduler's admission, inside its pass's transaction); false when the item
 * is no longer queued or its batch no longer running.
 */
export async function admitItem(id: string): Promise<boolean> {
  const item = await findItem(id);
  if (!item || item.status !== 'queued') return false;
  const batch = await findBatch(item.batchId);
  if (!batch || batch.status !== 'running') return false;
  const now = new Date();
  const updated = await getDb()
    .update(schema.batchItems)
    .set({ status: 'running', lease: item.lease + 1, leaseExpiresAt: new Date(now.getTime() + leaseMs()), leaseProcessId: currentCluster().processId, startedAt: now, finishedAt: null })
    .where(and(eq(schema.batchItems.id, id), eq(schema.batchItems.status, 'queued'), eq(schema.batchItems.lease, item.lease)))
    .returning({ id: schema.batchItems.id });
  if (updated.length) batchChanged(item.ownerId, item.batchId);
  return updated.length > 0;
}

/**
 * Start an admitted item's run (the scheduler's launch step; safe to repeat): its hidden conversation, then its run
 * keyed by the item and lease. Recording the run in the same transaction spends an attempt: the model is about to
 * run. A refusal before that (the conversation busy, the step aborted by its time bound) releases the lease without
 * spending one; an account past its conversation quota fails the item (retrying would meet the same refusal).
 */
export async function launchItem(id: string, signal: AbortSignal): Promise<void> {
  const item = await findItem(id);
  if (!item || item.status !== 'running' || item.runId) return;
  const batch = await findBatch(item.batchId);
  if (!batch || batch.status !== 'running') return;
  const lease = item.lease;
  if (!batch.agentId) return failItem(item, 'The agent this batch runs as was deleted');
  const [agent] = await getDb().select().from(schema.agents).where(eq(schema.agents.id, batch.agentId));
  if (!agent) return failItem(item, 'The agent this batch runs as was deleted');
  const answer = pendingAnswer(item);
  try {
    signal.throwIfAborted();
    const conversationId = await itemConversation(item, agent.id, agent.name, batch.targetName);
    signal.throwIfAborted();
    if (answer) return await resumeItem(item, conversationId, answer, signal);
    const text = renderTemplate(batch.template, item.input);
    await startRun(
      conversationId,
      {
        text,
        meta: {
          // A batch item is a delegated task to the scripted model: the person's own when the person started the batch.
          kind: 'delegated_task',
          // A person's own template and rows may carry directives for the scripted model; a model's (batch_task) not.
          author: batch.origin === 'person' ? 'person' : 'member',
          provenance: batch.origin === 'person' ? { contentKind: 'person_message', producer: { type: 'person' } } : { contentKind: 'delegated_task', producer: { type: 'agent' } },
          batchId: batch.id,
          batchItemId: item.id,
        },
      },
      {
        idempotencyKey: itemRunKey(item.id, lease),
        signal,
        // The agent's own tools, its ask and approval tools included: an item that stops for the person waits for them.
        context: { batchId: batch.id, batchItemId: item.id },
        inTransaction: async (tx, run) => {
          await recordItemRun(tx, item.id, lease, run.id, { attempts: sql`${schema.batchItems.attempts} + 1` });
          if (batch.teamId) await tx.update(schema.runs).set({ teamId: batch.teamId }).where(eq(schema.runs.id, run.id));
        },
      },
    );
    batchChanged(item.ownerId, item.batchId);
  } catch (err) {
    if (err instanceof LeaseLostError) return;
    if (err instanceof AppError && err.code === 'conversation_limit') return failItem(item, err.message);
    if (signal.aborted || err instanceof ConversationBusyError) return releaseLease(item);
    // The answered call is no longer the conversation's newest, or its agent was deleted: nothing can resume it.
    if (answer && err instanceof AppError && err.status === 409) return failItem(item, err.message);
    throw err;
  }
}

/**
 * Continue an answered item's run with the person's answer (launchItem's resume path), under the lease its admission
 * took: an approval or another interrupt resumes the graph, a question's answer is the next human message (as a team's
 * answer is). Recording the new run spends no attempt: the attempt the item's first run spent is still this one.
 */
async function resumeItem(item: BatchItem, conversationId: string, answer: ItemAnswer, signal: AbortSignal): Promise<void> {
  const lease = item.lease;
  const options: StartOptions = {
    idempotencyKey: itemRunKey(item.id, lease),
    signal,
    context: { batchId: item.batchId, batchItemId: item.id },
    inTransaction: (tx, run) => recordItemRun(tx, item.id, lease, run.id, { answer: { ...answer, resumed: true } }),
  };
  if (answer.type === 'interrupt') await resumeRun(conversationId, answer.response, options);
  else {
    const meta = { kind: 'clarification_answer', questionId: answer.questionId, author: 'person', provenance: clarificationAnswer(), batchId: item.batchId, batchItemId: item.id };
    await startRun(conversationId, { text: answer.text, meta }, options);
  }
  batchChanged(item.ownerId, item.batchId);
}

/**
 * Record a run on its item, in the run's own transaction, under the lease that admitted it. The lease is gone
 * (expired, released after this process was judged dead, cancelled) and the run is not already this lease's: throw,
 * so the run rolls back and no model runs for a lease nobody will record.
 */
async function recordItemRun(tx: Tx, itemId: string, lease: number, runId: string, set: { attempts?: SQL; answer?: BatchItem['answer'] }): Promise<void> {
  const recorded = await tx
    .update(schema.batchItems)
    .set({ ...set, runId, leaseExpiresAt: null })
    .where(and(held(itemId, lease), isNull(schema.batchItems.runId)))
    .returning({ id: schema.batchItems.id });
  if (recorded.length) return;
  const [now] = await tx.select({ runId: schema.batchItems.runId }).from(schema.batchItems).where(held(itemId, lease));
  if (now?.runId !== runId) throw new LeaseLostError();
}

/**
 * The item's own conversation (hidden: parent_run_id names the batch), created once and remembered on the item, and
 * only while the item still holds the lease that admitted it: a cancelled item gets no empty conversation.
 */
async function itemConversation(item: BatchItem, agentId: string, agentName: string, label: string): Promise<string> {
  if (item.conversationId) return item.conversationId;
  return writeTx(async (tx) => {
    const [current] = await tx.select({ c: schema.batchItems.conversationId }).from(schema.batchItems).where(held(item.id, item.lease));
    if (!current) throw new LeaseLostError();
    if (current.c) return current.c;
    await assertConversationQuota(tx, item.ownerId);
    const id = crypto.randomUUID();
    const now = new Date();
    const title = Array.from(`${label} · item ${item.idx + 1}`).slice(0, 80).join('');
    await tx.insert(schema.conversations).values({ id, ownerId: item.ownerId, agentId, agentName, title, parentRunId: batchItemParent(item.batchId), createdAt: now, updatedAt: now });
    await tx.update(schema.batchItems).set({ conversationId: id }).where(and(eq(schema.batchItems.id, item.id), isNull(schema.batchItems.conversationId)));
    return id;
  });
}

/** Back to queued under a new lease, attempts unchanged: nothing ran. */
export async function releaseLease(item: BatchItem): Promise<void> {
  await writeTx(async (tx) => {
    const released = await tx
      .update(schema.batchItems)
      .set({ status: 'queued', lease: item.lease + 1, leaseExpiresAt: null, runId: null })
      .where(and(held(item.id, item.lease), isNull(schema.batchItems.runId)))
      .returning({ id: schema.batchItems.id });
    if (released.length) batchChanged(item.ownerId, item.batchId);
  });
}

/** Terminal failure without spending more (nothing can make it run). */
async function failItem(item: BatchItem, error: string): Promise<void> {
  await writeTx(async (tx) => {
    const done = await tx
      .update(schema.batchItems)
      .set({ status: 'failed', error: truncateText(error, LIMITS.batch.errorChars * 4, LIMITS.batch.errorChars).text, leaseExpiresAt: null, finishedAt: new Date() })
      .where(held(item.id, item.lease))
      .returning({ id: schema.batchItems.id });
    if (done.length) {
      batchChanged(item.ownerId, item.batchId);
      await finishBatchIfDone(item.batchId);
    }
  });
}

/**
 * A spent attempt: back to queued under a new lease while the budget lasts, else failed. Fenced by the lease the
 * caller read: a completion or expiry under an older lease (a cancelled item, a late worker) writes nothing.
 */
async function spendAttempt(item: BatchItem, error: string, { countNow }: { countNow: boolean }): Promise<void> {
  const batch = await findBatch(item.batchId);
  const attempts = item.attempts + (countNow ? 1 : 0);
  const retry = !!batch && batch.status === 'running' && attempts < batch.maxAttempts;
  const cut = truncateText(error, LIMITS.batch.errorChars * 4, LIMITS.batch.errorChars).text;
  await writeTx(async (tx) => {
    const changed = await tx
      .update(schema.batchItems)
      .set(
        retry
          ? { status: 'queued', attempts, lease: item.lease + 1, leaseExpiresAt: null, runId: null, error: cut }
          : { status: 'failed', attempts, leaseExpiresAt: null, error: cut, finishedAt: new Date() },
      )
      .where(held(item.id, item.lease))
      .returning({ id: schema.batchItems.id });
    if (!changed.length) return;
    batchChanged(item.ownerId, item.batchId);
    if (!retry) await finishBatchIfDone(item.batchId);
  });
}

/**
 * Record a finished run's outcome on its item (the scheduler's finalize step; safe to repeat): done with its bounded
 * answer, or a spent attempt. Fenced: only while the item still holds the lease the run was started under.
 */
export async function finalizeItem(id: string): Promise<void> {
  const item = await findItem(id);
  if (item?.status === 'cancelled' && item.runId) return endLateWait(item);
  if (!item || item.status !== 'running' || !item.runId) return;
  const run = await findRun(item.runId);
  if (run && isRunActive(run.status)) return;
  if (!run) return spendAttempt(item, 'The item run is missing', { countNow: false });
  if (run.status === 'interrupted') return waitForPerson(item, run.finishedAt ?? new Date());
  if (run.status !== 'success') {
    const error = run.status === 'cancelled' ? 'The item run was cancelled' : (run.error ?? 'The item run failed');
    return spendAttempt(item, error, { countNow: false });
  }
  const answer = await finalAnswer(run.conversationId);
  const cut = answer === null ? null : truncateText(answer, LIMITS.batch.resultBytes);
  await writeTx(async (tx) => {
    const done = await tx
      .update(schema.batchItems)
      .set({ status: 'done', result: cut?.text ?? null, resultTruncated: cut?.truncated ?? false, error: null, leaseExpiresAt: null, finishedAt: new Date() })
      .where(held(item.id, item.lease))
      .returning({ id: schema.batchItems.id });
    if (!done.length) return;
    batchChanged(item.ownerId, item.batchId);
    await finishBatchIfDone(item.batchId);
  });
}

/**
 * A cancelled item whose run stopped for the person after the cancel's transaction had read it (the run ran on and
 * reached a question or an approval before it heard the cancel): nobody will answer it, so its wait ends as the
 * cancel's own did (./waits.ts). Any other end of a cancelled item's run changes nothing.
 */
async function endLateWait(item: BatchItem): Promise<void> {
  if ((await findRun(item.runId!))?.status !== 'interrupted') return;
  await writeTx(async (tx) => {
    await endWaitsOfCancelledBatch(tx, item.batchId, item.id);
  });
}

/**
 * The item's run stopped on a question or an approval: the item waits for the person, holding neither its lease (bumped
 * and cleared: a late worker writes nothing) nor a scheduler slot (the planner counts only running items), and shows
 * in the Inbox. Its run stays recorded: the inbox reads the question from it. Attempts unchanged.
 */
async function waitForPerson(item: BatchItem, since: Date): Promise<void> {
  await writeTx(async (tx) => {
    const waiting = await tx
      .update(schema.batchItems)
      .set({ status: 'waiting', lease: item.lease + 1, leaseExpiresAt: null, waitingSince: since })
      .where(held(item.id, item.lease))
      .returning({ id: schema.batchItems.id });
    if (waiting.length) batchChanged(item.ownerId, item.batchId);
  });
}

/** A run's final answer: its conversation's newest assistant text without tool calls. */
async function finalAnswer(conversationId: string): Promise<string | null> {
  const { messages } = await readThread(conversationId);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (!AIMessage.isInstance(m) || m.tool_calls?.length) continue;
    const text = contentText(m.content).trim();
    if (text) return text;
  }
  return null;
}

/**
 * An admitted item whose run was never recorded within its lease (its worker died or hung before starting it): the
 * lease is gone and the attempt spent. Checked against the lease the caller saw, so a launch that just recorded its
 * run keeps it.
 */
export async function expireItem(id: string, lease: number): Promise<void> {
  const item = await findItem(id);
  if (!item || item.status !== 'running' || item.lease !== lease || item.runId) return;
  if (!item.leaseExpiresAt || item.leaseExpiresAt.getTime() > Date.now()) return;
  return spendAttempt(item, 'The item lost its lease before its run started', { countNow: true });
}

/** Items whose run id is this run (a run's end finalizes its item). */
export async function itemOfRun(runId: string): Promise<string | undefined> {
  const [row] = await getDb().select({ id: schema.batchItems.id }).from(schema.batchItems).where(eq(schema.batchItems.runId, runId));
  return row?.id;
}

