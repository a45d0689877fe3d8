import 'server-only';
import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { BaseMessage } from '@langchain/core/messages';
import { approvalDecisionSchema } from '@/lib/schemas/conversation';
import { truncateText } from '@/lib/text';
import type { ConversationBatch, ConversationTeam, Message, RunInterrupt, WaitingTeamRequest } from '@/lib/types/conversation';
import { schema, writeTx } from '@/server/db';
import { jsonText } from '@/server/db/dialect';
import { encodedPlaceholder, preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';
import { currentCluster } from '@/server/cluster/cluster';
import type { Conversation, Run } from '@/server/db/schema';
import { LIMITS } from '@/lib/limits';
import { AppError, conflict, notFound, validationError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';
import { assertDailyCap } from '@/server/budgets/daily-cap';
import { assertConversationIdle } from './conversation-lock';
import { batchOfConversation, findConversation, getConversation, memberTeamOf } from './conversations';
import { withCompactionSummaries } from './compaction/conversation-view';
import { attachmentsFor } from '@/server/files/attachments';
import { RUN_MESSAGE_PREFIX, toApiMessages } from './messages';
import { launchRun } from './run-executor';
import { activeRuns, runEvents, RunCancelledError } from './run-events';
import { clarificationAnswer, personMessage } from './provenance';
import { findRun, finishRun, isFinished, latestRun, type ResumeInput, type StartInput } from './run-store';
import { cancelledWait, teamRequestWaiting, waitingTeamRequest } from './team-request-wait';
import { readThread } from './thread';
import { routeCancel } from './run-takeover';

export { createConversation, listConversations, getConversation } from './conversations';
export { runEvents, type RunEvent } from './run-events';
export type { StartInput, ResumeInput } from './run-store';

export { ConversationBusyError } from './conversation-lock';

/** The account already has LIMITS.run.inFlightPerAccount direct conversation runs pending or running. */
export class TooManyRunsError extends AppError {
  constructor(limit: number) {
    super(
      429,
      'too_many_runs',
      `You already have ${limit} conversation runs in progress; wait for one to finish or cancel one, then try again`,
      undefined,
      { 'Retry-After': String(LIMITS.run.retryAfterSeconds) },
    );
    this.name = 'TooManyRunsError';
  }
}

/** A resume arrived while no graph interrupt is waiting. */
export const notWaiting = () => conflict('not_waiting', 'Nothing in this conversation is waiting for an answer');

export type StartOptions = {
  idempotencyKey: string;
  /** Server-owned extras for the run context tools see (e.g. teamId, memberId, jobId). */
  context?: Record<string, unknown>;
  /** Aborts the call before it creates a run (a scheduler step that overran its bound). */
  signal?: AbortSignal;
  /**
   * Runs inside the transaction that creates the run (or finds it, for a repeated key), so the caller's record of
   * the run commits with it: a team job's run id, one commit (and fsync) fewer per job. Database work only: on
   * Postgres the transaction may run again after a serialization conflict.
   */
  inTransaction?: (tx: Tx, run: Run) => void | Promise<void>;
};
export type StartResult = { run: Run; created: boolean };

const TITLE_CHARS = 80;

/** The statements every run start takes (docs/performance.md, Scheduler): built once per connection. */
const statements = preparedPerConnection((db) => ({
  conversation: db.select().from(schema.conversations).where(eq(schema.conversations.id, sql.placeholder('id'))).prepare(),
  byKey: db
    .select()
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, sql.placeholder('conversationId')), eq(schema.runs.idempotencyKey, sql.placeholder('key'))))
    .prepare(),
  agentModel: db.select({ model: schema.agents.model }).from(schema.agents).where(eq(schema.agents.id, sql.placeholder('id'))).prepare(),
  insertRun: db
    .insert(schema.runs)
    .values({
      id: sql.placeholder('id'),
      conversationId: sql.placeholder('conversationId'),
      ownerId: sql.placeholder('ownerId'),
      idempotencyKey: sql.placeholder('key'),
      kind: sql.placeholder('kind'),
      status: 'pending',
      model: sql.placeholder('model'),
      input: sql.placeholder('input'),
      teamId: sql.placeholder('teamId'),
      processId: sql.placeholder('processId'),
    })
    .returning()
    .prepare(),
  touchConversation: db
    .update(schema.conversations)
    // A placeholder in set() is bound as given (title), or encoded by its column (updatedAt, a Date).
    .set({
      title: sql`${sql.placeholder('title')}`,
      updatedAt: encodedPlaceholder('updatedAt', schema.conversations.updatedAt),
    })
    .where(eq(schema.conversations.id, sql.placeholder('id')))
    .prepare(),
}));

// ---------- owner-scoped API (route handlers, server actions) ----------

/** Send a message to the owner's conversation: a new run, or the same run for a repeated idempotency key. */
export async function start(ownerId: string, conversationId: string, input: StartInput, options: StartOptions): Promise<StartResult> {
  assertNotDelegated(await getConversation(ownerId, conversationId));
  // The owner's own words: the scripted model may act on their directives (messages.ts MessageAuthor).
  return startRunAs(conversationId, { ...input, meta: { ...input.meta, author: 'person', provenance: personMessage() } }, options, 'direct');
}

/** The owner's run, or a 404 exactly like a missing id. */
export async function get(ownerId: string, runId: string): Promise<Run> {
  const run = await findRun(runId);
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
  /** The team request waiting on the newest run: the conversation points to the team's page to answer it. */
  teamRequest: WaitingTeamRequest | null;
  /** The team this conversation is a member of, or null (a member's conversation can be deleted only once its team is). */
  team: ConversationTeam | null;
  /** The batch whose item this hidden conversation runs, or null: its cancelled wait was ended by that batch's cancel. */
  batch: ConversationBatch | null;
};

/** The conversation's messages (from its newest checkpoint), newest run and pending interrupt. */
export async function getState(ownerId: string, conversationId: string): Promise<ConversationState> {
  const conversation = await getConversation(ownerId, conversationId);
  const { messages } = await readThread(conversationId);
  const run = (await latestRun(conversationId)) ?? null;
  return {
    conversation,
    // Each compaction's summary at its place (the thread keeps every message; compaction/conversation-view.ts).
    messages: await withAttachments(ownerId, toApiMessages(await withCompactionSummaries(conversationId, messages))),
    run,
    interrupt: run?.status === 'interrupted' ? (run.interrupt ?? null) : null,
    threadMessages: messages,
    teamRequest: await waitingTeamRequest(run),
    team: await memberTeamOf(conversationId),
    batch: batchOfConversation(conversation),
  };
}

/** The person's messages with the files sent with each (attached to its run): one read for the whole chat. */
async function withAttachments(ownerId: string, messages: Message[]): Promise<Message[]> {
  const runOf = (m: Message) => (m.role === 'user' && m.id.startsWith(RUN_MESSAGE_PREFIX) ? m.id.slice(RUN_MESSAGE_PREFIX.length) : null);
  const attached = await attachmentsFor(ownerId, messages.map(runOf).filter((id): id is string => !!id));
  if (!attached.size) return messages;
  return messages.map((m) => {
    const files = attached.get(runOf(m) ?? '');
    return files?.length ? { ...m, attachments: files } : m;
  });
}

/** Answer the graph interrupt the newest run stopped at (e.g. an approval) with Command({ resume: value }). */
export async function resume(ownerId: string, conversationId: string, value: unknown, options: StartOptions): Promise<StartResult> {
  assertNotDelegated(await getConversation(ownerId, conversationId));
  return resumeRunAs(conversationId, value, options, 'direct');
}

/**
 * Stop a run (checkpoints are kept, the conversation can continue). A finished run is returned unchanged. Waits
 * up to CANCEL_WAIT_MS for the run to stop; a run still stopping is returned as it is (running, conversation busy).
 */
export async function cancel(ownerId: string, runId: string): Promise<Run> {
  return cancelRun((await get(ownerId, runId)).id);
}

/** Resolve with the run once it has finished, or as it is when timeoutMs passes. Event-based, no polling. */
export function wait(runId: string, timeoutMs = 30_000): Promise<Run | undefined> {
  return new Promise((resolve, reject) => {
    const events = runEvents();
    let settled = false;
    const done = () => {
      // Once: the first look at the row below answers after the listener is on, so both may call.
      if (settled) return;
      settled = true;
      events.off('run:finished', onFinished);
      clearTimeout(timer);
      findRun(runId).then(resolve, reject);
    };
    const onFinished = (event: { runId: string }) => {
      if (event.runId === runId) done();
    };
    events.on('run:finished', onFinished);
    const timer = setTimeout(done, timeoutMs);
    findRun(runId).then((row) => {
      if (!row || isFinished(row.status)) done();
    }, reject);
  });
}

// ---------- internal variants (server code that already checked ownership, e.g. the team scheduler) ----------

/**
 * Who asked for a run. 'direct' runs (a person or API client talking to a conversation) count against the account's
 * runs in flight; 'scheduled' runs are team jobs, which the owner-fair scheduler already bounds.
 */
type Origin = 'direct' | 'scheduled';

/** Start a run on a conversation without an owner check. Same key → same run; an active run → ConversationBusyError. */
export async function startRun(conversationId: string, input: StartInput, options: StartOptions): Promise<StartResult> {
  return startRunAs(conversationId, input, options, 'scheduled');
}

async function startRunAs(conversationId: string, input: StartInput, options: StartOptions, origin: Origin): Promise<StartResult> {
  const stored: StartInput = {
    text: input.text,
    ...(input.meta ? { meta: input.meta } : {}),
    ...(input.messageContent !== undefined ? { messageContent: input.messageContent } : {}),
    ...(options.context ? { context: options.context } : {}),
  };
  const result = await writeTx(async (tx) => {
    const [conversation] = await statements(tx).conversation.execute({ id: conversationId });
    if (!conversation) throw notFound('Conversation');
    const repeated = await runOfKey(tx, conversationId, options);
    if (repeated) return repeated;
    await assertConversationIdle(tx, conversationId);
    let recorded = stored;
    if (origin === 'direct') {
      const latest = await latestRun(conversationId);
      const waiting = await waitingTeamRequest(latest);
      if (waiting) throw teamRequestWaiting(waiting);
      assertNoApprovalWaiting(latest);
      recorded = asClarificationAnswer(stored, latest);
      await assertRunQuota(tx, conversation.ownerId);
      // The operator's daily token cap: a new message is refused (429 daily_token_cap) until midnight UTC; team
      // work is held at admission instead (ADR 023).
      await assertDailyCap(conversation.ownerId);
    }
    const [agent] = conversation.agentId ? await statements(tx).agentModel.execute({ id: conversation.agentId }) : [];
    if (!agent) throw conflict('agent_deleted', 'The agent of this conversation was deleted; start a new conversation');
    const run = await insertRun(tx, conversation, 'start', agent.model, recorded, options.idempotencyKey);
    const title = conversation.title || truncateText(input.text.trim().split(/\r?\n/, 1)[0] ?? '', 4 * TITLE_CHARS, TITLE_CHARS).text;
    await statements(tx).touchConversation.execute({ id: conversationId, title, updatedAt: run.createdAt });
    await options.inTransaction?.(tx, run);
    return { run, created: true };
  });
  if (result.created) launchRun(result.run.id);
  return result;
}

/** Resume the conversation's interrupted graph without an owner check. 409 when no graph interrupt is waiting. */
export async function resumeRun(conversationId: string, value: unknown, options: StartOptions): Promise<StartResult> {
  return resumeRunAs(conversationId, value, options, 'scheduled');
}

async function resumeRunAs(conversationId: string, value: unknown, options: StartOptions, origin: Origin): Promise<StartResult> {
  const { checkpointId } = await readThread(conversationId);
  options.signal?.throwIfAborted();
  const result = await writeTx(async (tx) => {
    const [conversation] = await tx.select().from(schema.conversations).where(eq(schema.conversations.id, conversationId));
    if (!conversation) throw notFound('Conversation');
    const repeated = await runOfKey(tx, conversationId, options);
    if (repeated) return repeated;
    await assertConversationIdle(tx, conversationId);
    // Read in this transaction (getDb() inside writeTx is the transaction).
    const latest = await latestRun(conversationId);
    if (latest?.status === 'cancelled' && latest.teamId !== null && isGraphInterrupt(latest.interrupt)) throw cancelledWait(latest.interrupt);
    if (!latest || latest.status !== 'interrupted' || !isGraphInterrupt(latest.interrupt)) throw notWaiting();
    if (origin === 'direct') {
      const waiting = await waitingTeamRequest(latest);
      if (waiting) throw teamRequestWaiting(waiting);
      await assertRunQuota(tx, conversation.ownerId);
    }
    if (isApproval(latest.interrupt)) {
      const parsed = approvalDecisionSchema.safeParse(value);
      if (!parsed.success) throw validationError(prefixFields('value', zodFields(parsed.error)));
    }
    const stored: ResumeInput = { value, ...(checkpointId ? { checkpointId } : {}), ...(options.context ? { context: options.context } : {}) };
    const [agent] = conversation.agentId
      ? await tx.select({ id: schema.agents.id }).from(schema.agents).where(eq(schema.agents.id, conversation.agentId))
      : [];
    if (!agent) throw conflict('agent_deleted', 'The agent of this conversation was deleted; start a new conversation');
    // A resume goes on with the interrupted run's setup, model included (assembly/recorded-setup.ts).
    const run = await insertRun(tx, conversation, 'resume', latest.model, stored, options.idempotencyKey);
    await tx.update(schema.conversations).set({ updatedAt: run.createdAt }).where(eq(schema.conversations.id, conversationId));
    await options.inTransaction?.(tx, run);
    return { run, created: true };
  });
  if (result.created) launchRun(result.run.id);
  return result;
}

/** How long a cancel request waits for the run to stop before answering with the run as it is. */
export const CANCEL_WAIT_MS = 5_000;

export type CancelOptions = {
  /** Wait at most this long for the run to stop (default CANCEL_WAIT_MS; 0 = just ask it to stop). */
  waitMs?: number;
  /** Stop waiting when this aborts (a scheduler step's bound); the run keeps stopping on its own. */
  signal?: AbortSignal;
};

/**
 * Cancel without an owner check (idempotent). An executing run is aborted, and only its executor records
 * 'cancelled', once the graph has really stopped: until then the run stays running and its conversation busy, so
 * no second run can start on the thread beside a step that ignores the abort. A run that is not executing in this
 * process (left pending by a dead one, or never launched during shutdown) has nothing that could still write, so it
 * is recorded cancelled here. With several processes, a run another live process executes is stopped there (asked
 * through the database and a note), and waited for the same way. Returns the run as it is after the wait.
 */
export async function cancelRun(runId: string, options: CancelOptions = {}): Promise<Run> {
  const run = await findRun(runId);
  if (!run) throw notFound('Run');
  if (isFinished(run.status)) return run;
  const active = activeRuns().get(runId);
  if (!active) {
    const routed = await routeCancel(runId);
    if (routed === 'asked' || routed === 'asked again') {
      // Asked before: it is already stopping there (as isStopping() tells for a run of ours); don't wait again.
      const waitMs = routed === 'asked again' ? 0 : (options.waitMs ?? CANCEL_WAIT_MS);
      await settleWithin(wait(runId, waitMs), waitMs, options.signal);
      return (await findRun(runId))!;
    }
    await finishRun(runId, { status: 'cancelled' });
    return (await findRun(runId))!;
  }
  if (!active.controller.signal.aborted) active.controller.abort(new RunCancelledError());
  await settleWithin(active.promise, options.waitMs ?? CANCEL_WAIT_MS, options.signal);
  return (await findRun(runId))!;
}

/** Whether an abort was already requested for a run executing in this process (it is on its way to stopping). */
export const isStopping = (runId: string): boolean => activeRuns().get(runId)?.controller.signal.aborted === true;

export { findRun, latestRun } from './run-store';
export { findConversation };

// ---------- helpers ----------

/**
 * A person's message while the conversation's newest run waits on the agent's question is their answer to it (the
 * chat says so above the composer): recorded as one, with the question's id, as a team's answer is.
 */
function asClarificationAnswer(input: StartInput, latest: Run | undefined): StartInput {
  if (!latest || latest.status !== 'interrupted' || !isClarification(latest.interrupt)) return input;
  if (input.meta?.kind !== undefined) return input;
  const questionId = (latest.interrupt as { questionId?: unknown }).questionId;
  return {
    ...input,
    meta: { ...input.meta, kind: 'clarification_answer', ...(typeof questionId === 'string' ? { questionId } : {}), provenance: clarificationAnswer() },
  };
}

/**
 * A person's message while a tool call waits for their approval is refused, as an @mention is (one rule for both,
 * and the chat's own: "Approve or decline the tool call above first"): a new turn would leave the call unanswered,
 * and the person's yes or no is the answer the agent asked for. Declining is one step away.
 */
function assertNoApprovalWaiting(latest: Run | undefined): void {
  if (latest?.status === 'interrupted' && isApproval(latest.interrupt)) throw interruptPending();
}

export const interruptPending = () => new AppError(409, 'interrupt_pending', 'Approve or decline the pending tool call in this conversation first');

/**
 * A delegated child's conversation (server/agents/delegation) or a batch item's (server/batches) can be read, never
 * continued by a person; the refusal says which, and where a batch item is answered instead.
 */
function assertNotDelegated(conversation: Conversation): void {
  if (!conversation.parentRunId) return;
  const batch = batchOfConversation(conversation);
  throw conflict(
    'delegated_conversation',
    batch
      ? `This conversation runs an item of batch ${batch.id}: it can be read, not continued (answer or retry the item from its batch)`
      : 'This conversation belongs to a delegated child run: it can be read, not continued',
  );
}

type Tx = Parameters<Parameters<typeof writeTx>[0]>[0];

/**
 * The run a repeated key already made (a retried send or resume answers it, creating nothing), handed to the
 * caller's transaction hook as a new run would be; null for a new key.
 */
async function runOfKey(tx: Tx, conversationId: string, options: StartOptions): Promise<StartResult | null> {
  const [existing] = await statements(tx).byKey.execute({ conversationId, key: options.idempotencyKey });
  if (!existing) return null;
  await options.inTransaction?.(tx, existing);
  return { run: existing, created: false };
}

/** Direct conversation runs in flight (not team jobs: no context.jobId; not delegated children; not batch items, ADR 059). */
const directRunsInFlight = statement(
  `select count(*) as n from runs where status in ('pending', 'running') and owner_id = ? and kind in ('start', 'resume') and ${jsonText('input', 'context', 'jobId')} is null and parent_run_id is null
      and ${jsonText('input', 'context', 'batchItemId')} is null`,
);

/**
 * 429 when the owner already has the maximum of direct conversation runs pending or running (team job runs,
 * delegated children and batch items excluded: the scheduler bounds those, and a running batch must not keep its owner
 * from chatting).
 */
async function assertRunQuota(_tx: Tx, ownerId: string): Promise<void> {
  const limit = LIMITS.run.inFlightPerAccount;
  const row = (await directRunsInFlight.get<{ n: number }>(ownerId))!;
  if (row.n >= limit) throw new TooManyRunsError(limit);
}

async function insertRun(tx: Tx, conversation: Conversation, kind: 'start' | 'resume', model: string, input: unknown, key: string): Promise<Run> {
  // A team job's run (context.teamId, set by the team's execution) counts against that team's budget.
  const teamId = (input as { context?: { teamId?: unknown } }).context?.teamId;
  const [run] = await statements(tx).insertRun.execute({
    id: crypto.randomUUID(),
    conversationId: conversation.id,
    ownerId: conversation.ownerId,
    key,
    kind,
    model,
    input,
    teamId: typeof teamId === 'string' ? teamId : null,
    // This process launches it once the transaction commits: until it stops heartbeating, no other takes it over.
    processId: currentCluster().processId,
  });
  return run!;
}

const isClarification = (interrupt: unknown) => (interrupt as { type?: unknown } | null)?.type === 'clarification';
const isApproval = (interrupt: unknown) => (interrupt as { type?: unknown } | null)?.type === 'approval';
/** Clarifications are answered with a new message, every other interrupt with a graph resume. */
const isGraphInterrupt = (interrupt: unknown) => interrupt != null && !isClarification(interrupt);

function prefixFields(prefix: string, fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k === '_' ? prefix : `${prefix}.${k}`, v]));
}

/** Resolves when the promise settles, ms pass or the signal aborts, whichever comes first. */
function settleWithin(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    promise.finally(done).catch(() => undefined);
  });
}
