import 'server-only';
import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { BaseMessage } from '@langchain/core/messages';
import { approvalDecisionSchema } from '@/lib/schemas/conversation';
import { truncateText } from '@/lib/text';
import { ACTIVE_RUN_STATUSES, type Message, type RunInterrupt } from '@/lib/types/conversation';
import { schema, writeTx } from '@/server/db';
import type { Conversation, Run } from '@/server/db/schema';
import { AppError, conflict, notFound, validationError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';
import { findConversation, getConversation } from './conversations';
import { toApiMessages } from './messages';
import { launchRun } from './run-executor';
import { activeRuns, runEvents } from './run-events';
import { findRun, finishRun, isFinished, latestRun, type ResumeInput, type StartInput } from './run-store';
import { readThread } from './thread';

export { createConversation, listConversations, getConversation } from './conversations';
export { runEvents, type RunEvent } from './run-events';
export type { StartInput, ResumeInput } from './run-store';

/** Another run is pending or running on the conversation (one run at a time). */
export class ConversationBusyError extends AppError {
  constructor() {
    super(409, 'conversation_busy', 'This conversation is busy with another run; wait for it to finish or cancel it');
    this.name = 'ConversationBusyError';
  }
}

/** A resume arrived while no graph interrupt is waiting. */
export const notWaiting = () => conflict('not_waiting', 'Nothing in this conversation is waiting for an answer');

export type StartOptions = {
  idempotencyKey: string;
  /** Server-owned extras for the run context tools see (e.g. teamId, memberId, jobId). */
  context?: Record<string, unknown>;
};
export type StartResult = { run: Run; created: boolean };

const TITLE_CHARS = 80;

// ---------- owner-scoped API (route handlers, server actions) ----------

/** Send a message to the owner's conversation: a new run, or the same run for a repeated idempotency key. */
export function start(ownerId: string, conversationId: string, input: StartInput, options: StartOptions): StartResult {
  getConversation(ownerId, conversationId);
  // The owner's own words: the scripted model may act on their directives (messages.ts MessageAuthor).
  return startRun(conversationId, { ...input, meta: { ...input.meta, author: 'person' } }, options);
}

/** The owner's run, or a 404 exactly like a missing id. */
export function get(ownerId: string, runId: string): Run {
  const run = findRun(runId);
  if (!run || run.ownerId !== ownerId) throw notFound('Run');
  return run;
}

export type ConversationState = {
  conversation: Conversation;
  messages: Message[];
  /** The newest run, if any. */
  run: Run | null;
  /** What the newest run is waiting for, when it was interrupted. */
  interrupt: RunInterrupt | unknown | null;
  /** The raw checkpoint messages, for server code that needs more than the API shape. */
  threadMessages: BaseMessage[];
};

/** The conversation's messages (from its newest checkpoint), newest run and pending interrupt. */
export async function getState(ownerId: string, conversationId: string): Promise<ConversationState> {
  const conversation = getConversation(ownerId, conversationId);
  const { messages } = await readThread(conversationId);
  const run = latestRun(conversationId) ?? null;
  return {
    conversation,
    messages: toApiMessages(messages),
    run,
    interrupt: run?.status === 'interrupted' ? (run.interrupt ?? null) : null,
    threadMessages: messages,
  };
}

/** Answer the graph interrupt the newest run stopped at (e.g. an approval) with Command({ resume: value }). */
export async function resume(ownerId: string, conversationId: string, value: unknown, options: StartOptions): Promise<StartResult> {
  getConversation(ownerId, conversationId);
  return resumeRun(conversationId, value, options);
}

/** Stop a run (checkpoints are kept, the conversation can continue). A finished run is returned unchanged. */
export async function cancel(ownerId: string, runId: string): Promise<Run> {
  return cancelRun(get(ownerId, runId).id);
}

/** Resolve with the run once it has finished, or as it is when timeoutMs passes. Event-based, no polling. */
export function wait(runId: string, timeoutMs = 30_000): Promise<Run | undefined> {
  return new Promise((resolve) => {
    const events = runEvents();
    const done = () => {
      events.off('run:finished', onFinished);
      clearTimeout(timer);
      resolve(findRun(runId));
    };
    const onFinished = (event: { runId: string }) => {
      if (event.runId === runId) done();
    };
    events.on('run:finished', onFinished);
    const timer = setTimeout(done, timeoutMs);
    const row = findRun(runId);
    if (!row || isFinished(row.status)) done();
  });
}

// ---------- internal variants (server code that already checked ownership, e.g. the team scheduler) ----------

/** Start a run on a conversation without an owner check. Same key → same run; an active run → ConversationBusyError. */
export function startRun(conversationId: string, input: StartInput, options: StartOptions): StartResult {
  const stored: StartInput = {
    text: input.text,
    ...(input.meta ? { meta: input.meta } : {}),
    ...(input.messageContent !== undefined ? { messageContent: input.messageContent } : {}),
    ...(options.context ? { context: options.context } : {}),
  };
  const result = writeTx((tx) => {
    const conversation = tx.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)).get();
    if (!conversation) throw notFound('Conversation');
    const existing = findByKey(tx, conversationId, options.idempotencyKey);
    if (existing) return { run: existing, created: false };
    assertIdle(tx, conversationId);
    const agent = conversation.agentId
      ? tx.select({ model: schema.agents.model }).from(schema.agents).where(eq(schema.agents.id, conversation.agentId)).get()
      : undefined;
    if (!agent) throw conflict('agent_deleted', 'The agent of this conversation was deleted; start a new conversation');
    const run = insertRun(tx, conversation, 'start', agent.model, stored, options.idempotencyKey);
    const title = conversation.title || truncateText(input.text.trim().split(/\r?\n/, 1)[0] ?? '', 4 * TITLE_CHARS, TITLE_CHARS).text;
    tx.update(schema.conversations).set({ title, updatedAt: run.createdAt }).where(eq(schema.conversations.id, conversationId)).run();
    return { run, created: true };
  });
  if (result.created) launchRun(result.run.id);
  return result;
}

/** Resume the conversation's interrupted graph without an owner check. 409 when no graph interrupt is waiting. */
export async function resumeRun(conversationId: string, value: unknown, options: StartOptions): Promise<StartResult> {
  const { checkpointId } = await readThread(conversationId);
  const result = writeTx((tx) => {
    const conversation = tx.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)).get();
    if (!conversation) throw notFound('Conversation');
    const existing = findByKey(tx, conversationId, options.idempotencyKey);
    if (existing) return { run: existing, created: false };
    assertIdle(tx, conversationId);
    const latest = latestRun(conversationId);
    if (!latest || latest.status !== 'interrupted' || !isGraphInterrupt(latest.interrupt)) throw notWaiting();
    if (isApproval(latest.interrupt)) {
      const parsed = approvalDecisionSchema.safeParse(value);
      if (!parsed.success) throw validationError(prefixFields('value', zodFields(parsed.error)));
    }
    const stored: ResumeInput = { value, ...(checkpointId ? { checkpointId } : {}), ...(options.context ? { context: options.context } : {}) };
    const agent = conversation.agentId
      ? tx.select({ model: schema.agents.model }).from(schema.agents).where(eq(schema.agents.id, conversation.agentId)).get()
      : undefined;
    if (!agent) throw conflict('agent_deleted', 'The agent of this conversation was deleted; start a new conversation');
    const run = insertRun(tx, conversation, 'resume', agent.model, stored, options.idempotencyKey);
    tx.update(schema.conversations).set({ updatedAt: run.createdAt }).where(eq(schema.conversations.id, conversationId)).run();
    return { run, created: true };
  });
  if (result.created) launchRun(result.run.id);
  return result;
}

/** Cancel without an owner check: aborts the executing graph and records 'cancelled' (idempotent). */
export async function cancelRun(runId: string): Promise<Run> {
  const run = findRun(runId);
  if (!run) throw notFound('Run');
  if (isFinished(run.status)) return run;
  const active = activeRuns().get(runId);
  if (active) {
    active.controller.abort(new Error('Run cancelled'));
    await settleWithin(active.promise, 5_000);
  }
  // Not executing here (e.g. left pending by a dead process) or slow to stop: record it ourselves.
  finishRun(runId, { status: 'cancelled' });
  return findRun(runId)!;
}

export { findRun, latestRun } from './run-store';
export { findConversation };

// ---------- helpers ----------

type Tx = Parameters<Parameters<typeof writeTx>[0]>[0];

function findByKey(tx: Tx, conversationId: string, key: string): Run | undefined {
  return tx
    .select()
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, conversationId), eq(schema.runs.idempotencyKey, key)))
    .get();
}

function assertIdle(tx: Tx, conversationId: string): void {
  const active = tx
    .select({ id: schema.runs.id })
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, conversationId), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
    .get();
  if (active) throw new ConversationBusyError();
}

function insertRun(tx: Tx, conversation: Conversation, kind: 'start' | 'resume', model: string, input: unknown, key: string): Run {
  return tx
    .insert(schema.runs)
    .values({ id: crypto.randomUUID(), conversationId: conversation.id, ownerId: conversation.ownerId, idempotencyKey: key, kind, status: 'pending', model, input })
    .returning()
    .get();
}

const isClarification = (interrupt: unknown) => (interrupt as { type?: unknown } | null)?.type === 'clarification';
const isApproval = (interrupt: unknown) => (interrupt as { type?: unknown } | null)?.type === 'approval';
/** Clarifications are answered with a new message, every other interrupt with a graph resume. */
const isGraphInterrupt = (interrupt: unknown) => interrupt != null && !isClarification(interrupt);

function prefixFields(prefix: string, fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k === '_' ? prefix : `${prefix}.${k}`, v]));
}

function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
