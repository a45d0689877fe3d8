import 'server-only';
import { and, asc, eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { assertConversationIdle } from '@/server/agents/conversation-lock';
import { interruptPending } from '@/server/agents/runs';
import { mentionMessage } from '@/server/agents/provenance';
import { applyNote, recordNote } from '@/server/agents/thread-notes';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { tieBreakText } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { queueRequest } from './queue';
import { touchTeam } from './revision';

const noteRun = statement(`select 1 as found from runs where conversation_id = ? and idempotency_key = ? and kind = 'note'`);
// The newest non-note run (a created_at tie broken by server/db/dialect.ts tieBreak).
const newestInterrupt = statement(
  `select interrupt from runs where conversation_id = ? and kind != 'note'
    order by created_at desc, ${tieBreakText('id')} desc limit 1`,
);

export type MentionTarget = { teamId: string; teamName: string; memberId: string; memberName: string; label: string };

/** "Team / Member", or the member name alone when that label is longer than 120 UTF-16 units. */
export function mentionLabel(teamName: string, memberName: string): string {
  const label = `${teamName} / ${memberName}`;
  return label.length > LIMITS.mentionLabel.maxUtf16 ? memberName : label;
}

/**
 * Members of the owner's ready teams that a conversation can mention. A member's own conversation is left
 * out (it can't mention itself). Routing always uses the ids, never the label.
 */
export async function mentionTargets(ownerId: string, conversationId?: string, db: Db = getDb()): Promise<MentionTarget[]> {
  const rows = await db
    .select({ team: schema.teams, member: schema.teamMembers })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teams.ownerId, ownerId), eq(schema.teams.status, 'ready')))
    .orderBy(asc(schema.teams.name), asc(schema.teamMembers.position));
  return rows
    .filter((r) => r.member.conversationId && r.member.conversationId !== conversationId)
    .map((r) => ({ teamId: r.team.id, teamName: r.team.name, memberId: r.member.id, memberName: r.member.name, label: mentionLabel(r.team.name, r.member.name) }));
}

export type QueuedMention = { jobId: string; teamId: string; memberId: string; label: string; status: string };
export type MentionInput = { memberIds: string[]; text: string; messageKey: string };
export type RecordedMentions = { jobs: QueuedMention[]; created: boolean; noteRunId: string };

/**
 * The durable half of an @mention send, in one transaction. Ownership comes first: another owner's conversation
 * is a 404 whatever state it is in. Unless this message key was recorded already (a resend), the conversation's
 * lock is taken (a run or another note in flight → 409) and a pending approval refuses; then one request per
 * mentioned member is queued (idempotent per message key and member; each result returns here as a receipt)
 * and the person's message with its framework note is recorded as a note run. A crash after the commit loses
 * nothing: start-up appends the message (recoverNotes) before the scheduler can return a receipt here.
 */
export async function recordMentions(ownerId: string, conversationId: string, input: MentionInput): Promise<RecordedMentions> {
  const noteKey = `mention:${input.messageKey}`;
  const result = await writeTx(async (tx) => {
    const [conversation] = await tx
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.id, conversationId), eq(schema.conversations.ownerId, ownerId)));
    if (!conversation) throw notFound('Conversation');
    const resend = await noteRun.get(conversationId, `note:${noteKey}`);
    if (!resend) {
      await assertConversationIdle(tx, conversationId);
      // A graph paused at an interrupt (an approval) must be answered first: writing into its thread would drop it.
      const paused = await newestInterrupt.get<{ interrupt: string | null }>(conversationId);
      const interrupt = paused?.interrupt ? (JSON.parse(paused.interrupt) as { type?: string }) : null;
      if (interrupt && interrupt.type !== 'clarification') {
        throw interruptPending();
      }
    }
    const targets = new Map((await mentionTargets(ownerId, undefined, tx)).map((t) => [t.memberId, t]));
    let created = false;
    const touched = new Map<string, string[]>();
    const jobs: QueuedMention[] = [];
    for (const memberId of input.memberIds) {
      const target = targets.get(memberId);
      if (!target) throw validationError({ memberIds: `Not a member of one of your ready teams: ${memberId}` });
      const member = (await tx.select().from(schema.teamMembers).where(eq(schema.teamMembers.id, memberId)))[0]!;
      if (member.conversationId === conversationId) {
        throw new AppError(422, 'validation_error', 'A member’s own conversation can’t mention itself', { memberIds: 'A member’s own conversation can’t mention itself' });
      }
      const outcome = await queueRequest(tx, {
        teamId: target.teamId,
        ownerId,
        member,
        text: input.text,
        requestKey: `mention:${conversationId}:${input.messageKey}:${memberId}`,
        sourceMemberId: null,
        sourceConversationId: conversationId,
        senderLabel: 'You',
        parent: null,
      });
      if (outcome.created) {
        created = true;
        touched.set(target.teamId, [...(touched.get(target.teamId) ?? []), outcome.job.id]);
      }
      jobs.push({ jobId: outcome.job.id, teamId: target.teamId, memberId, label: target.label, status: outcome.job.status });
    }
    for (const [teamId, jobIds] of touched) await touchTeam(tx, teamId, jobIds);
    const names = jobs.map((j) => j.label).join(', ');
    const { run } = await recordNote(tx, conversation, {
      key: noteKey,
      text: input.text,
      meta: { kind: 'mention', jobIds: jobs.map((j) => j.jobId), labels: jobs.map((j) => j.label), provenance: mentionMessage() },
      note: `Queued ${jobs.length === 1 ? 'a request' : `${jobs.length} requests`} to ${names}. Each result will be returned to this conversation.`,
    });
    return { jobs, created, noteRunId: run.id };
  });
  if (result.created) wakeScheduler();
  return result;
}

/**
 * The whole "@mention from a conversation" send: record the requests and the person's message durably, then
 * append the message and a framework note to the conversation's thread under its lock (never a run of its own
 * agent). Idempotent by message key: a resend returns the same jobs and never appends twice.
 */
export async function sendMentions(ownerId: string, conversationId: string, input: MentionInput): Promise<{ jobs: QueuedMention[]; created: boolean }> {
  const { jobs, created, noteRunId } = await recordMentions(ownerId, conversationId, input);
  await applyNote(noteRunId);
  return { jobs, created };
}
