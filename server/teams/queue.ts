import 'server-only';
import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { schema, type Db } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';
import type { Job, TeamMember } from '@/server/db/schema';
import { AppError } from '@/server/http/errors';
import { queuedInput, requestCriteria } from './member-input';
import { assertTeamBudgetOpen } from '@/server/budgets/team-budget';
import { appendShared } from './shared-record';

/** Said to the person (the API, the composers) and to a member whose send_member is refused. */
export const capacityMessage = `Team limit reached: this team has taken its ${LIMITS.team.requests} requests; clone it (Manage → Clone team) to keep working with the same members and goal`;
export const chainMessage = `Handoff limit reached: this chain of handoffs has its ${LIMITS.team.chain} requests; finish with what you have, or the person starts a new request`;

type NewRequest = {
  teamId: string;
  ownerId: string;
  member: TeamMember;
  text: string;
  requestKey: string;
  /** Null for the person. */
  sourceMemberId: string | null;
  sourceConversationId: string | null;
  senderLabel: string;
  /** The request being executed by the sender, when this is a handoff. */
  parent: Pick<Job, 'id' | 'rootId' | 'depth'> | null;
  /** The sender's acceptance criteria (send_member), validated by the caller; kept with the job until admission. */
  acceptanceCriteria?: readonly string[];
};

export type QueueOutcome = { job: Job; created: boolean };

// Every request reads and writes these: built once per connection (server/db/prepared.ts).
const statements = preparedPerConnection((db) => ({
  byKey: db
    .select()
    .from(schema.jobs)
    .where(and(eq(schema.jobs.teamId, sql.placeholder('teamId')), eq(schema.jobs.kind, 'request'), eq(schema.jobs.requestKey, sql.placeholder('requestKey'))))
    .limit(1)
    .prepare(),
  insert: db
    .insert(schema.jobs)
    .values({
      id: sql.placeholder('id'),
      teamId: sql.placeholder('teamId'),
      ownerId: sql.placeholder('ownerId'),
      kind: 'request',
      memberId: sql.placeholder('memberId'),
      conversationId: sql.placeholder('conversationId'),
      sourceMemberId: sql.placeholder('sourceMemberId'),
      sourceConversationId: sql.placeholder('sourceConversationId'),
      parentId: sql.placeholder('parentId'),
      rootId: sql.placeholder('rootId'),
      depth: sql.placeholder('depth'),
      status: 'queued',
      text: sql.placeholder('text'),
      requestKey: sql.placeholder('requestKey'),
      frozenInput: sql.placeholder('frozenInput'),
      updatedAt: sql.placeholder('updatedAt'),
    })
    .returning()
    .prepare(),
}));
const requestCount = statement(`select count(*) as n from jobs where team_id = ? and kind = 'request'`);
const chainCount = statement(`select count(*) as n from jobs where root_id = ? and kind = 'request'`);

/**
 * Queue one request job (and its shared-record line) inside the caller's transaction. Idempotent by
 * requestKey: the same key returns the existing job; the same key with another text or member is refused.
 * Enforces the team's request capacity and the handoff chain bound.
 */
export async function queueRequest(tx: Db, req: NewRequest): Promise<QueueOutcome> {
  const [existing] = await statements(tx).byKey.execute({ teamId: req.teamId, requestKey: req.requestKey });
  if (existing) {
    const sameCriteria = JSON.stringify(requestCriteria(existing.frozenInput)) === JSON.stringify(req.acceptanceCriteria ?? []);
    if (existing.text !== req.text || existing.memberId !== req.member.id || !sameCriteria) {
      throw new AppError(409, 'request_key_reused', 'This request id was already used for a different request');
    }
    return { job: existing, created: false };
  }
  // The person's new request to a team at its budget is refused (409 team_budget_reached); a member's handoff is
  // queued and held with the rest of the team's work until the budget is raised (ADR 023).
  if (req.sourceMemberId === null) await assertTeamBudgetOpen(req.teamId);
  if (!req.member.conversationId) {
    throw new AppError(409, 'team_not_ready', 'The team is not ready; reconnect it from the Manage menu');
  }
  const count = (await requestCount.get<{ n: number }>(req.teamId))!;
  if (count.n >= LIMITS.team.requests) throw new AppError(409, 'team_capacity', capacityMessage);
  if (req.parent) {
    const chain = (await chainCount.get<{ n: number }>(req.parent.rootId))!;
    if (chain.n >= LIMITS.team.chain) throw new AppError(409, 'chain_limit', chainMessage);
  }
  const id = crypto.randomUUID();
  const now = new Date();
  const [job] = await statements(tx).insert.execute({
    id,
    teamId: req.teamId,
    ownerId: req.ownerId,
    memberId: req.member.id,
    conversationId: req.member.conversationId,
    sourceMemberId: req.sourceMemberId,
    sourceConversationId: req.sourceConversationId,
    parentId: req.parent?.id ?? null,
    rootId: req.parent?.rootId ?? id,
    depth: (req.parent?.depth ?? 0) + 1,
    text: req.text,
    requestKey: req.requestKey,
    frozenInput: queuedInput(req.acceptanceCriteria ?? []),
    updatedAt: now,
  });
  await appendShared(tx, {
    teamId: req.teamId,
    jobId: id,
    kind: 'request',
    senderMemberId: req.sourceMemberId,
    senderLabel: req.senderLabel,
    recipientMemberId: req.member.id,
    text: req.text,
  });
  return { job: job!, created: true };
}
