import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, ne } from 'drizzle-orm';
import type { BulkAnswerInput } from '@/lib/schemas/inbox';
import type { BulkAnswerOutcome, BulkAnswerResult } from '@/lib/types/inbox';
import type { ApprovalDecision } from '@/lib/types/conversation';
import { findRun } from '@/server/agents/run-store';
import { answerItem, waitingItem } from '@/server/batches/answer';
import type { ItemAnswer } from '@/server/batches/answer-shape';
import { resume } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { tieBreak } from '@/server/db/dialect';
import { AppError, conflict } from '@/server/http/errors';
import { respondToJob } from '@/server/teams/answers';

/**
 * Approve or decline several waiting tool calls at once (the Inbox's bulk action; ADR 056). Each is answered on its
 * own, exactly as its chat or its team card would answer it, so one that fails (already answered elsewhere, the
 * account's in-flight run limit, a deleted agent) is reported and the others go on. Another owner's item is
 * `not_found`, like a missing one, and nothing of it changes.
 */
export async function answerApprovals(ownerId: string, input: BulkAnswerInput): Promise<BulkAnswerResult> {
  const outcomes: BulkAnswerOutcome[] = [];
  // One after another: each answer is its own transaction, and a flood is bounded by the schema (LIMITS.inbox.maxBulk).
  for (const id of input.ids) outcomes.push(await answerOne(ownerId, id, input.decision, itemKey(input.bulkKey, id)));
  return { outcomes };
}

/** The same bulk (key) again gives each item the same key: a retried bulk answers nothing twice. */
const itemKey = (bulkKey: string, id: string) => `inbox-${crypto.createHash('sha256').update(`${bulkKey}\n${id}`).digest('hex')}`;

const ALREADY = 'Already answered elsewhere';
const missing = (id: string): BulkAnswerOutcome => ({ id, ok: false, code: 'not_found', message: 'Nothing waits here any more, or it is not yours' });
const notApproval = (id: string): BulkAnswerOutcome => ({ id, ok: false, code: 'not_an_approval', message: 'This one asks a question: answer it on its own' });
const isApproval = (payload: unknown) => (payload as { type?: unknown } | null)?.type === 'approval';

/** The refusals that mean "someone answered it first" (here, in its chat, on its team's page). */
const ANSWERED_CODES = new Set(['not_waiting', 'clarification_changed', 'conversation_busy', 'inbox_moved_on']);

async function answerOne(ownerId: string, id: string, decision: ApprovalDecision, key: string): Promise<BulkAnswerOutcome> {
  const [source, rowId] = id.split(':') as ['chat' | 'team' | 'batch', string];
  try {
    if (source === 'batch') {
      const item = await waitingItem(ownerId, rowId);
      if (!item) return missing(id);
      const answeredHere = (item.answer as ItemAnswer | null)?.answerKey === key;
      if (item.status !== 'waiting' && !answeredHere) return { id, ok: false, code: 'already_answered', message: ALREADY };
      if (!answeredHere) {
        const run = item.runId ? await findRun(item.runId) : undefined;
        if (!isApproval(run?.interrupt)) return notApproval(id);
      }
      // The same answer as the batch page's, and the same rule: the scheduler resumes it in its turn.
      await answerItem(ownerId, null, rowId, { response: decision, answerKey: key });
      return { id, ok: true };
    }
    if (source === 'chat') {
      const run = await findRun(rowId);
      if (!run || run.ownerId !== ownerId || run.teamId !== null || run.parentRunId !== null) return missing(id);
      if (run.status !== 'interrupted') return missing(id);
      if (!isApproval(run.interrupt)) return notApproval(id);
      await resume(ownerId, run.conversationId, decision, { idempotencyKey: key, inTransaction: (_tx, answer) => answersRun(answer, run.id) });
      return { id, ok: true };
    }
    const [job] = await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, rowId)).limit(1);
    if (!job || job.ownerId !== ownerId || job.kind !== 'request') return missing(id);
    if (job.status !== 'waiting_input' && job.answerKey !== key) return { id, ok: false, code: 'already_answered', message: ALREADY };
    const waiting = job.waiting as { type?: unknown; payload?: unknown } | null;
    if (waiting?.type !== 'interrupt' || !isApproval(waiting.payload)) return notApproval(id);
    await respondToJob(ownerId, job.teamId, job.id, { response: decision, answerKey: key });
    return { id, ok: true };
  } catch (err) {
    if (err instanceof AppError) {
      if (err.status === 404) return missing(id);
      if (ANSWERED_CODES.has(err.code)) return { id, ok: false, code: 'already_answered', message: ALREADY };
      return { id, ok: false, code: 'failed', message: err.message };
    }
    throw err;
  }
}

/**
 * Inside the transaction that records the resume: the interrupt it answers (the conversation's newest run before it)
 * must be the one the person saw in the inbox. Otherwise that one was answered meanwhile and the conversation stopped
 * at another call, which this decision was never about: the transaction is rolled back.
 */
async function answersRun(answer: { id: string; conversationId: string }, expectedRunId: string): Promise<void> {
  const [before] = await getDb()
    .select({ id: schema.runs.id })
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, answer.conversationId), ne(schema.runs.kind, 'note'), ne(schema.runs.id, answer.id)))
    .orderBy(desc(schema.runs.createdAt), desc(tieBreak(schema.runs.id)))
    .limit(1);
  if (before?.id !== expectedRunId) throw conflict('inbox_moved_on', ALREADY);
}
