import 'server-only';
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import { batchCreateSchema } from '@/lib/schemas/batch';
import { isBatchFinished } from '@/lib/types/batch';
import { delegationEvents } from '@/server/agents/delegation/events';
import { activeRuns } from '@/server/agents/run-events';
import type { RunContext } from '@/server/agents/run-types';
import type { ToolGroupAgent } from '@/server/agents/tools/registry';
import { AppError } from '@/server/http/errors';
import { subscribeBatch } from '@/server/push/bus';
import { wakeScheduler } from '@/server/scheduler/signal';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { batchEnds } from './ended';
import { holdsSlot } from './lend';
import { createBatch, findBatch } from './store';
import { batchSummary } from './summary';

export const BATCH_TOOL = 'batch_task';

const args = z.object({
  agentId: z.string().describe('The id of the agent every item runs as (one of your account).'),
  template: z.string().describe('The prompt for each item, with {{column}} fields filled from the item.'),
  columns: z.array(z.string()).describe('The column names every item has.'),
  items: z.array(z.record(z.string(), z.string())).describe('The items: one object of column → text each.'),
  concurrency: z.number().int().describe('How many items run at once.'),
  maxAttempts: z.number().int().optional().describe('Runs per item at most, retries included (default 3).'),
  wait: z.boolean().describe('true: wait here for the whole batch; false: go on, and get one message when it ends.'),
});

/**
 * The `batch` tool group's `batch_task` (ADR 059): a durable batch started explicitly by an agent whose own tool
 * groups name 'batch' (never offered through an empty allowlist, never inferred). Its limits are the batch's own, not
 * the run's delegation ledger. The same call (run, tool call id) finds the same batch when a tools step is redone.
 */
export function batchTools(context: RunContext, agent?: ToolGroupAgent): StructuredToolInterface[] {
  if (!context.runId || !agent?.toolGroups.includes('batch') || context.batchItemId) return [];
  return [
    tool(async (raw: unknown, config: RunnableConfig) => runBatchTask(context, raw, config), {
      name: BATCH_TOOL,
      description:
        'Run one prompt template over a list of items as a durable batch: each item runs as its own child run of the agent you name, ' +
        'retried within its attempts, surviving restarts. Use it only for a real list of independent items.',
      schema: args,
    }),
  ];
}

async function runBatchTask(context: RunContext, raw: unknown, config: RunnableConfig): Promise<ToolMessage> {
  const toolCallId = (config as { toolCall?: { id?: string } }).toolCall?.id;
  if (!toolCallId) throw new Error('batch_task can only run as a tool call of a run');
  const input = args.safeParse(raw);
  const body = input.success
    ? batchCreateSchema.safeParse({
        target: { agentId: input.data.agentId },
        template: input.data.template,
        columns: input.data.columns,
        items: input.data.items,
        concurrency: input.data.concurrency,
        ...(input.data.maxAttempts !== undefined ? { maxAttempts: input.data.maxAttempts } : {}),
      })
    : input;
  if (!body.success || !input.success) {
    const fields = Object.fromEntries(body.error!.issues.slice(0, 10).map((i) => [i.path.join('.') || '_', i.message]));
    return result(toolCallId, 'error', { error: 'invalid_arguments', fields });
  }
  let batchId: string;
  try {
    const { batch } = await createBatch(context.ownerId, body.data, {
      origin: 'tool',
      caller: {
        runId: context.runId,
        conversationId: context.conversationId,
        toolCallId,
        notify: input.data.wait ? 'wait' : 'message',
        // As `task` decides it (delegation/task-tool.ts): such a run lends its slot while it waits (./lend.ts).
        holdsSlot: typeof context.jobId === 'string' || typeof context.delegationId === 'string',
      },
    });
    batchId = batch.id;
  } catch (err) {
    if (err instanceof AppError) return result(toolCallId, 'error', { error: err.code, message: err.message });
    throw err;
  }
  wakeScheduler();
  if (!input.data.wait) return result(toolCallId, 'success', { batchId, status: 'running', note: 'You will get one message with the summary when the batch ends.' });
  const ended = await waitForEnd(batchId, context.ownerId, context.runId, activeRuns().get(context.runId)?.controller.signal);
  return result(toolCallId, 'success', await batchSummary(ended));
}

/** A missed event (a readmission or an end in another process whose note was lost) is found by looking again. */
const RECHECK_MS = 1_000;

/**
 * Resolve with the batch once it has ended and the calling run holds a slot again (one that lent it continues only
 * once the scheduler admitted it again: ./lend.ts); on the run's stop, reject (the batch goes on; the caller may
 * cancel it).
 */
function waitForEnd(batchId: string, ownerId: string, runId: string, signal: AbortSignal | undefined) {
  return new Promise<NonNullable<Awaited<ReturnType<typeof findBatch>>>>((resolve, reject) => {
    let settled = false;
    const timer = setInterval(() => look(), RECHECK_MS);
    timer.unref?.();
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      batchEnds().off('ended', onEnd);
      delegationEvents().off('resumed', onResumed);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const look = () => {
      if (settled) return;
      Promise.all([findBatch(batchId), holdsSlot(runId)]).then(
        ([row, holds]) => {
          if (row && isBatchFinished(row.status) && holds) finish(() => resolve(row));
        },
        (err: unknown) => finish(() => reject(err)),
      );
    };
    const onResumed = ({ runId: resumed }: { runId: string }) => {
      if (resumed === runId) look();
    };
    const onEnd = (id: string) => {
      if (id === batchId) look();
    };
    const onAbort = () => finish(() => reject(signal!.reason));
    batchEnds().on('ended', onEnd);
    delegationEvents().on('resumed', onResumed);
    // Another process's items end the batch there: its push note reaches this one.
    const unsubscribe = subscribeBatch(ownerId, batchId, look);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    look();
  });
}

/** The tool result: JSON, tag-neutralized (items' errors and names may hold model-written text). */
function result(toolCallId: string, status: 'success' | 'error', content: Record<string, unknown>): ToolMessage {
  return new ToolMessage({ tool_call_id: toolCallId, name: BATCH_TOOL, status, content: neutralizedJson(content) });
}
