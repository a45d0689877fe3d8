import 'server-only';
import { and, asc, eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { appendExchange } from '@/server/agents/thread-notes';
import { getDb, schema, writeTx } from '@/server/db';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { queueRequest } from './queue';
import { touchTeam } from './revision';

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
export function mentionTargets(ownerId: string, conversationId?: string): MentionTarget[] {
  const rows = getDb()
    .select({ team: schema.teams, member: schema.teamMembers })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teams.ownerId, ownerId), eq(schema.teams.status, 'ready')))
    .orderBy(asc(schema.teams.name), asc(schema.teamMembers.position))
    .all();
  return rows
    .filter((r) => r.member.conversationId && r.member.conversationId !== conversationId)
    .map((r) => ({ teamId: r.team.id, teamName: r.team.name, memberId: r.member.id, memberName: r.member.name, label: mentionLabel(r.team.name, r.member.name) }));
}

export type QueuedMention = { jobId: string; teamId: string; memberId: string; label: string; status: string };

/**
 * Queue one request per mentioned member from an ordinary conversation (idempotent per message key and
 * member). Each result returns to this conversation as a receipt, like a peer handoff.
 */
export function queueMentions(ownerId: string, conversationId: string, input: { memberIds: string[]; text: string; messageKey: string }): { jobs: QueuedMention[]; created: boolean } {
  const conversation = getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.id, conversationId), eq(schema.conversations.ownerId, ownerId)))
    .get();
  if (!conversation) throw notFound('Conversation');
  const targets = new Map(mentionTargets(ownerId).map((t) => [t.memberId, t]));
  const result = writeTx((tx) => {
    let created = false;
    const touched = new Set<string>();
    const jobs = input.memberIds.map((memberId) => {
      const target = targets.get(memberId);
      if (!target) throw validationError({ memberIds: `Not a member of one of your ready teams: ${memberId}` });
      const member = tx.select().from(schema.teamMembers).where(eq(schema.teamMembers.id, memberId)).get()!;
      if (member.conversationId === conversationId) {
        throw new AppError(422, 'validation_error', 'A member’s own conversation can’t mention itself', { memberIds: 'A member’s own conversation can’t mention itself' });
      }
      const outcome = queueRequest(tx, {
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
        touched.add(target.teamId);
      }
      return { jobId: outcome.job.id, teamId: target.teamId, memberId, label: target.label, status: outcome.job.status };
    });
    for (const teamId of touched) touchTeam(tx, teamId);
    return { jobs, created };
  });
  if (result.created) wakeScheduler();
  return result;
}

/**
 * The whole "@mention from a conversation" send: queue the requests, then record the person's message and a
 * framework note in the conversation (never a run of its own agent). Idempotent by message key.
 */
export async function sendMentions(ownerId: string, conversationId: string, input: { memberIds: string[]; text: string; messageKey: string }) {
  const busy = getDb().$client
    .prepare(`select 1 from runs where conversation_id = ? and status in ('pending','running') limit 1`)
    .get(conversationId);
  if (busy) throw new AppError(409, 'conversation_busy', 'This conversation is busy with another run; wait for it to finish or cancel it');
  // A graph paused at an interrupt (an approval) must be answered first: writing into its thread would drop it.
  const paused = getDb().$client
    .prepare(`select interrupt from runs where conversation_id = ? order by created_at desc, rowid desc limit 1`)
    .get(conversationId) as { interrupt: string | null } | undefined;
  const interrupt = paused?.interrupt ? (JSON.parse(paused.interrupt) as { type?: string }) : null;
  if (interrupt && interrupt.type !== 'clarification') {
    throw new AppError(409, 'interrupt_pending', 'Answer the pending approval in this conversation first');
  }
  const result = queueMentions(ownerId, conversationId, input);
  const names = result.jobs.map((j) => j.label).join(', ');
  await appendExchange(conversationId, {
    key: `mention:${input.messageKey}`,
    text: input.text,
    meta: { kind: 'mention', jobIds: result.jobs.map((j) => j.jobId), labels: result.jobs.map((j) => j.label) },
    note: `Queued ${result.jobs.length === 1 ? 'a request' : `${result.jobs.length} requests`} to ${names}. Each result will be returned to this conversation.`,
  });
  return result;
}
