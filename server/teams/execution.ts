import 'server-only';
import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { truncateText } from '@/lib/text';
import type { ApiWaiting } from '@/lib/types/team';
import { ConversationBusyError, cancelRun, findRun, isStopping, resumeRun, startRun, type StartInput } from '@/server/agents/runs';
import { clarificationAnswer, receipt, teamRequest } from '@/server/agents/provenance';
import { isFinished } from '@/server/agents/run-store';
import { readThread } from '@/server/agents/thread';
import { takeFinalMessages } from '@/server/agents/final-state';
import { afterCommit, getDb, schema, writeTx, type Db } from '@/server/db';
import { encodedPlaceholder, preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';
import type { Job, Team } from '@/server/db/schema';
import { attachmentNote, attachmentsOf } from '@/server/files/attachments';
import { attributeResult } from './attribution';
import { buildSharedContext } from './context';
import { isQueuedInput, receiptMessage, requestCriteria, requestMessage } from './member-input';
import { touchTeam } from './revision';
import { appendShared } from './shared-record';

/** A pending answer to a waiting job: text for a clarification, JSON for any other interrupt. */
export type PendingAnswer =
  | { type: 'clarification'; text: string; questionId: string; answerKey: string }
  | { type: 'interrupt'; response: unknown; answerKey: string };

// Read several times per job step: prepared once per connection (server/db/prepared.ts).
const jobById = preparedPerConnection((db) => db.select().from(schema.jobs).where(eq(schema.jobs.id, sql.placeholder('id'))).prepare());
const loadJob = async (jobId: string, db: Db = getDb()): Promise<Job | undefined> => (await jobById(db).execute({ id: jobId }))[0];
// What the steps check before they write (not the job's texts and JSON, which each full read parses again).
const jobStateById = preparedPerConnection((db) =>
  db
    .select({ id: schema.jobs.id, teamId: schema.jobs.teamId, status: schema.jobs.status, runId: schema.jobs.runId, runKey: schema.jobs.runKey, conversationId: schema.jobs.conversationId })
    .from(schema.jobs)
    .where(eq(schema.jobs.id, sql.placeholder('id')))
    .prepare(),
);
const loadJobState = async (jobId: string, db: Db = getDb()) => (await jobStateById(db).execute({ id: jobId }))[0];

/** What a finished request's shared-record line and receipt are written from (not its texts and JSON). */
const receiptFields = {
  id: schema.jobs.id,
  teamId: schema.jobs.teamId,
  ownerId: schema.jobs.ownerId,
  kind: schema.jobs.kind,
  memberId: schema.jobs.memberId,
  conversationId: schema.jobs.conversationId,
  sourceMemberId: schema.jobs.sourceMemberId,
  sourceConversationId: schema.jobs.sourceConversationId,
  rootId: schema.jobs.rootId,
  depth: schema.jobs.depth,
  receiptJobId: schema.jobs.receiptJobId,
};
type FinishedJob = Pick<Job, keyof typeof receiptFields>;

// The other reads and writes on every job's admission, launch and finish, prepared the same way.
const statements = preparedPerConnection((db) => ({
  admit: db
    .update(schema.jobs)
    .set({
      status: 'running',
      frozenInput: encodedPlaceholder('frozenInput', schema.jobs.frozenInput),
      runKey: sql`${sql.placeholder('runKey')}`,
      runId: null,
      admittedAt: encodedPlaceholder('now', schema.jobs.admittedAt),
      updatedAt: encodedPlaceholder('now', schema.jobs.updatedAt),
    })
    .where(eq(schema.jobs.id, sql.placeholder('id')))
    .prepare(),
  recordRun: db
    .update(schema.jobs)
    .set({ runId: sql`${sql.placeholder('runId')}`, updatedAt: encodedPlaceholder('now', schema.jobs.updatedAt) })
    .where(eq(schema.jobs.id, sql.placeholder('id')))
    .prepare(),
  complete: db
    .update(schema.jobs)
    .set({
      status: 'completed',
      result: sql`${sql.placeholder('result')}`,
      resultTruncated: encodedPlaceholder('resultTruncated', schema.jobs.resultTruncated),
      error: null,
      waiting: null,
      completedAt: encodedPlaceholder('now', schema.jobs.completedAt),
      updatedAt: encodedPlaceholder('now', schema.jobs.updatedAt),
    })
    .where(eq(schema.jobs.id, sql.placeholder('id')))
    .returning(receiptFields)
    .prepare(),
  team: db.select().from(schema.teams).where(eq(schema.teams.id, sql.placeholder('id'))).prepare(),
  memberName: db.select({ name: schema.teamMembers.name }).from(schema.teamMembers).where(eq(schema.teamMembers.id, sql.placeholder('id'))).prepare(),
  memberConversation: db
    .select({ c: schema.teamMembers.conversationId })
    .from(schema.teamMembers)
    .where(eq(schema.teamMembers.id, sql.placeholder('id')))
    .prepare(),
  agentToolGroups: db
    .select({ toolGroups: schema.agents.toolGroups })
    .from(schema.conversations)
    .innerJoin(schema.agents, eq(schema.agents.id, schema.conversations.agentId))
    .where(eq(schema.conversations.id, sql.placeholder('id')))
    .prepare(),
}));
const receiptCount = statement(`select count(*) as n from jobs where team_id = ? and kind = 'receipt'`);

async function memberName(tx: Db, memberId: string | null): Promise<string> {
  if (!memberId) return 'You';
  return (await statements(tx).memberName.execute({ id: memberId }))[0]?.name ?? 'A member';
}

async function agentToolGroups(tx: Db, conversationId: string): Promise<string[]> {
  return (await statements(tx).agentToolGroups.execute({ id: conversationId }))[0]?.toolGroups ?? [];
}

/** The exact run input of a job, built once at admission with the context as it is then. */
async function freezeInput(tx: Db, job: Job, team: Team): Promise<StartInput> {
  const context = await buildSharedContext(team.id, tx);
  if (job.kind === 'request') {
    const senderLabel = await memberName(tx, job.sourceMemberId);
    const name = await memberName(tx, job.memberId);
    const acceptanceCriteria = requestCriteria(job.frozenInput);
    // Files the person attached (ADR 058): listed after the request, in the same human message, as data.
    const attached = attachmentNote(await attachmentsOf(job.id));
    return {
      text: job.text,
      messageContent: withNote(requestMessage({
        teamName: team.name,
        memberName: name,
        senderLabel,
        jobId: job.id,
        text: job.text,
        toolGroups: await agentToolGroups(tx, job.conversationId),
        context,
        acceptanceCriteria,
      }), attached),
      // A request without a sending member came from the person (feed composer or an @mention in a chat).
      meta: {
        kind: 'team_request',
        teamId: team.id,
        jobId: job.id,
        memberId: job.memberId,
        from: senderLabel,
        author: job.sourceMemberId === null ? 'person' : 'member',
        provenance: teamRequest(job.sourceMemberId === null ? null : { memberId: job.sourceMemberId, name: senderLabel }),
        ...(acceptanceCriteria.length ? { acceptanceCriteria } : {}),
      },
    };
  }
  const parent = job.parentId ? await loadJob(job.parentId, tx) : undefined;
  const status = parent?.status === 'failed' ? 'failed' : 'completed';
  const worker = await memberName(tx, job.sourceMemberId);
  return {
    text: job.text,
    messageContent: receiptMessage({ memberName: worker, requestText: parent?.text ?? '', status, resultText: job.text, jobId: job.parentId ?? job.id, context }),
    meta: { kind: 'receipt', teamId: team.id, jobId: job.id, parentJobId: job.parentId, status, memberName: worker, resultText: job.text, author: 'member', provenance: receipt(worker) },
  };
}

/**
 * Admit a queued job (or a pending answer): it takes a slot, its input is frozen and its run key fixed,
 * in one transaction with the revision bump. False when it is no longer admissible.
 */
export async function admitJob(jobId: string): Promise<boolean> {
  return writeTx(async (tx) => {
    const job = await loadJob(jobId, tx);
    if (!job || (job.status !== 'queued' && job.status !== 'resuming')) return false;
    const team = (await statements(tx).team.execute({ id: job.teamId }))[0];
    if (!team) return false;
    const now = new Date();
    if (job.status === 'queued') {
      // A queued request may hold its acceptance criteria until now (member-input.ts QueuedInput).
      const frozenInput = job.frozenInput && !isQueuedInput(job.frozenInput) ? job.frozenInput : await freezeInput(tx, job, team);
      await statements(tx).admit.execute({ id: jobId, frozenInput, runKey: `job:${job.id}:start`, now });
    } else {
      const answer = job.answer as PendingAnswer;
      await tx
        .update(schema.jobs)
        .set({ status: 'running', runKey: `job:${job.id}:answer:${answer.answerKey}`, runId: null, admittedAt: now, updatedAt: now })
        .where(eq(schema.jobs.id, jobId));
    }
    await touchTeam(tx, job.teamId, [jobId]);
    return true;
  });
}

/*
 * Steps (launch, finalize, stop) run on the team's worker and take its signal, which aborts when a step overruns
 * its bound. An aborted step writes nothing after the abort, and the job is left where the next planning pass picks
 * it up again:
 * - launch: `running` without a recorded run (no run was created, or the same run key finds the one that was);
 * - finalize: `running`/`cancelling` with its finished run, finalized again by the next pass;
 * - stop: `cancelling` while its run is still stopping; the run's finish event finalizes it (`cancelled`).
 */

/**
 * Start (or find) the admitted job's run. The run key makes this safe to repeat after a crash or timeout:
 * the same key returns the same run, never a second one.
 */
export async function launchJob(jobId: string, signal?: AbortSignal): Promise<void> {
  const job = await loadJob(jobId);
  if (!job) return;
  if (job.status === 'cancelling') return stopJob(jobId, signal);
  if (job.status !== 'running' || !job.runKey) return;
  if (job.runId) {
    const run = await findRun(job.runId);
    if (run && isFinished(run.status)) return finalizeJob(jobId, signal);
    if (run) return;
  }
  // hasAcceptanceCriteria: the member's system text points to the criteria in its request message.
  const context = { teamId: job.teamId, memberId: job.memberId, jobId: job.id, ...(requestCriteria(job.frozenInput).length ? { hasAcceptanceCriteria: true } : {}) };
  // The job's run id is written in the transaction that creates (or finds) the run: one commit fewer per job, and
  // the run is never running without its job knowing it.
  let stored = false;
  const recordRun = async (tx: Db, run: { id: string }) => {
    const fresh = await loadJobState(jobId, tx);
    if (!fresh || fresh.runKey !== job.runKey) return;
    await statements(tx).recordRun.execute({ id: jobId, runId: run.id, now: new Date() });
    // The job now has a run to show (its card's Steps, its bar on the Runs page): announce it, or readers that
    // read at admission would not see the run until the job's next change.
    if (fresh.runId !== run.id) await touchTeam(tx, fresh.teamId, [jobId]);
    // Known once committed: on Postgres this body may run again and find the job changed (ADR 033 §3).
    afterCommit(() => (stored = true));
  };
  try {
    const isAnswer = job.runKey.includes(':answer:');
    const answer = job.answer as PendingAnswer | null;
    const { run } =
      isAnswer && answer?.type === 'interrupt'
        ? await resumeRun(job.conversationId, answer.response, { idempotencyKey: job.runKey, context, signal, inTransaction: recordRun })
        : await startRun(
            job.conversationId,
            isAnswer && answer?.type === 'clarification'
              ? { text: answer.text, meta: { kind: 'clarification_answer', teamId: job.teamId, jobId: job.id, questionId: answer.questionId, author: 'person', provenance: clarificationAnswer() } }
              : (job.frozenInput as StartInput),
            { idempotencyKey: job.runKey, context, inTransaction: recordRun },
          );
    if (stored && isFinished((await findRun(run.id))?.status ?? 'pending')) await finalizeJob(jobId, signal);
  } catch (err) {
    // Overran its bound: leave the job as it is (see above), never fail it for the scheduler's own slowness.
    if (signal?.aborted) return;
    if (err instanceof ConversationBusyError) {
      // Someone is running something in that conversation directly: give the slot back and wait.
      await writeTx(async (tx) => {
        const fresh = await loadJobState(jobId, tx);
        if (!fresh || fresh.status !== 'running' || fresh.runId) return;
        await tx
          .update(schema.jobs)
          .set({ status: isAnswerKey(fresh.runKey) ? 'resuming' : 'queued', runKey: null, admittedAt: null, updatedAt: new Date() })
          .where(eq(schema.jobs.id, jobId));
        await touchTeam(tx, fresh.teamId, [jobId]);
      });
      return;
    }
    await failJob(jobId, err instanceof Error ? err.message : String(err));
  }
}

const isAnswerKey = (key: string | null) => !!key && key.includes(':answer:');

/** Record the outcome of the job's finished run: completed, failed, waiting for input or cancelled. */
export async function finalizeJob(jobId: string, signal?: AbortSignal): Promise<void> {
  const job = await loadJobState(jobId);
  if (!job || (job.status !== 'running' && job.status !== 'cancelling') || !job.runId) return;
  const run = await findRun(job.runId);
  if (!run || !isFinished(run.status)) return;
  if (run.status === 'success') {
    // The run's final messages as its executor kept them; the checkpoint after a restart (or once evicted).
    const messages = takeFinalMessages(run.id) ?? (await readThread(job.conversationId)).messages;
    signal?.throwIfAborted();
    const attribution = attributeResult(messages, job.id);
    if (attribution.ok) await completeJob(job.id, run.id, attribution.text);
    else await failJob(job.id, attribution.error, run.id);
  } else if (run.status === 'interrupted') {
    await waitForInput(job.id, run.id, toWaiting(run.interrupt));
  } else if (run.status === 'error') {
    await failJob(job.id, run.error ?? 'The run failed', run.id);
  } else {
    await markCancelled(job.id, run.id);
  }
}

function toWaiting(interrupt: unknown): ApiWaiting {
  const i = interrupt as { type?: string; question?: unknown; questionId?: unknown } | null;
  if (i?.type === 'clarification' && typeof i.question === 'string') {
    return { type: 'clarification', question: i.question, questionId: String(i.questionId ?? '') };
  }
  return { type: 'interrupt', payload: interrupt ?? null };
}

/** Whether the job is still running this run (a final transition applies only then). */
async function stillRunning(tx: Db, jobId: string, runId: string | null): Promise<boolean> {
  const job = await loadJobState(jobId, tx);
  if (!job || (job.status !== 'running' && job.status !== 'cancelling')) return false;
  return !runId || job.runId === runId;
}

/** Apply a final transition if the job is still running this run; returns the updated job. */
async function transition(tx: Db, jobId: string, runId: string | null, set: Partial<Job>): Promise<Job | undefined> {
  if (!(await stillRunning(tx, jobId, runId))) return undefined;
  return (await tx.update(schema.jobs).set({ ...set, updatedAt: new Date() }).where(eq(schema.jobs.id, jobId)).returning())[0];
}

async function completeJob(jobId: string, runId: string, answer: string): Promise<void> {
  const { text, truncated } = truncateText(answer, LIMITS.result.maxBytes);
  await writeTx(async (tx) => {
    // The transition every successful job makes, prepared (transition() builds its statement at each call).
    const job =
      (await stillRunning(tx, jobId, runId)) &&
      (await statements(tx).complete.execute({ id: jobId, result: text, resultTruncated: truncated, now: new Date() }))[0];
    if (!job) return;
    await recordOutcome(tx, job, 'result', text);
    const receiptId = job.kind === 'request' ? await writeReceipt(tx, job, truncated ? `${text}\n[Result shortened; the full answer is in the member's conversation.]` : text) : null;
    await touchTeam(tx, job.teamId, receiptId ? [jobId, receiptId] : [jobId]);
  });
}

/**
 * A member's result or error, in the team's shared record. A job without a member is a receipt answered in the
 * person's own chat with an agent (the result of an @mention coming back): what that agent writes stays in the
 * chat. Recorded, it would reach every member's context as written by "You" — model text credited to the person.
 */
async function recordOutcome(tx: Db, job: FinishedJob, kind: 'result' | 'error', text: string): Promise<void> {
  if (!job.memberId) return;
  await appendShared(tx, { teamId: job.teamId, jobId: job.id, kind, senderMemberId: job.memberId, senderLabel: await memberName(tx, job.memberId), recipientMemberId: job.sourceMemberId, text });
}

export async function failJob(jobId: string, error: string, runId: string | null = null): Promise<void> {
  await writeTx(async (tx) => {
    const job = await transition(tx, jobId, runId, { status: 'failed', error, waiting: null, completedAt: new Date() });
    if (!job) return;
    await recordOutcome(tx, job, 'error', error);
    const receiptId = job.kind === 'request' ? await writeReceipt(tx, job, `The request failed: ${error}`) : null;
    await touchTeam(tx, job.teamId, receiptId ? [jobId, receiptId] : [jobId]);
  });
}

async function waitForInput(jobId: string, runId: string, waiting: ApiWaiting): Promise<void> {
  await writeTx(async (tx) => {
    const job = await transition(tx, jobId, runId, { status: 'waiting_input', waiting, answer: null });
    if (job) await touchTeam(tx, job.teamId, [jobId]);
  });
}

async function markCancelled(jobId: string, runId: string | null): Promise<void> {
  await writeTx(async (tx) => {
    const job = await transition(tx, jobId, runId, { status: 'cancelled', completedAt: new Date() });
    if (!job) return;
    await appendShared(tx, { teamId: job.teamId, jobId, kind: 'cancelled', senderMemberId: null, senderLabel: 'You', recipientMemberId: job.memberId, text: 'Request cancelled' });
    await touchTeam(tx, job.teamId, [jobId]);
  });
}

/**
 * Queue the receipt that returns a finished request to whoever asked (a member or a conversation), in the
 * transaction that recorded the result. At most one per request: its key is the request id.
 */
/** Queue the requester's receipt for a finished request; returns the new receipt job's id, if one was written. */
async function writeReceipt(tx: Db, job: FinishedJob, text: string): Promise<string | null> {
  if (job.receiptJobId) return null;
  let conversationId = job.sourceConversationId;
  if (job.sourceMemberId) {
    conversationId = (await statements(tx).memberConversation.execute({ id: job.sourceMemberId }))[0]?.c ?? null;
  }
  if (!conversationId) return null;
  const count = (await receiptCount.get<{ n: number }>(job.teamId))!;
  if (count.n >= LIMITS.team.receipts) {
    await appendShared(tx, { teamId: job.teamId, jobId: job.id, kind: 'note', senderMemberId: null, senderLabel: 'Ensemble', recipientMemberId: job.sourceMemberId, text: 'Receipt capacity reached: this result was not returned to its requester.' });
    return null;
  }
  const id = crypto.randomUUID();
  const [inserted] = await tx
    .insert(schema.jobs)
    .values({
      id,
      teamId: job.teamId,
      ownerId: job.ownerId,
      kind: 'receipt',
      memberId: job.sourceMemberId,
      conversationId,
      sourceMemberId: job.memberId,
      sourceConversationId: job.conversationId,
      parentId: job.id,
      rootId: job.rootId,
      depth: job.depth,
      status: 'queued',
      text: truncateText(text, LIMITS.result.maxBytes + 200).text,
      requestKey: `receipt:${job.id}`,
      updatedAt: new Date(),
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted) return null;
  await tx.update(schema.jobs).set({ receiptJobId: id }).where(eq(schema.jobs.id, job.id));
  return id;
}

/**
 * Stop a cancelling job's run (checkpoints are kept) and record the outcome once the run has really stopped. Waits
 * for that within the step's bound; a run still stopping leaves the job `cancelling` and its finish event finalizes
 * it. A run already asked to stop is not waited for again, so reconciliation passes don't hold the team's worker.
 */
export async function stopJob(jobId: string, signal?: AbortSignal): Promise<void> {
  const job = await loadJobState(jobId);
  if (!job || job.status !== 'cancelling') return;
  if (!job.runId) return markCancelled(jobId, null);
  const run = await cancelRun(job.runId, { signal, waitMs: isStopping(job.runId) ? 0 : LIMITS.scheduler.stepTimeoutMs });
  if (!isFinished(run.status)) return;
  await finalizeJob(jobId, signal);
}

const withNote = (message: string, note: string) => (note ? `${message}\n\n${note}` : message);
