import 'server-only';
import type { AdmissionHold, ApiJob, ApiMember, ApiTeam, ApiTeamSummary, ApiWaiting, MemberStatus, TeamStatus } from '@/lib/types/team';
import { nanosToUsd } from '@/lib/money';
import type { Job, Team, TeamMember } from '@/server/db/schema';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export type JobCounts = { pending: number; waiting: number };
/** The team's token usage, its spend (known and unknown costs) and whether its queued work is held (server/budgets). */
export type TeamBudgetView = { tokensUsed: number; spentNanos: number; unknownCostRuns: number; admissionHeld: AdmissionHold | null };

/**
 * The schema still lists 'disconnected' (kept for the column's history), but no code ever wrote it; such a row
 * would be as unfinished as a 'creating' one, and start-up or Reconnect finishes it the same way.
 */
const apiStatus = (team: Team): TeamStatus => (team.status === 'ready' ? 'ready' : 'creating');

export function toApiTeamSummary(team: Team, memberCount: number, counts: JobCounts, budget: TeamBudgetView): ApiTeamSummary {
  return {
    id: team.id,
    name: team.name,
    goal: team.goal,
    status: apiStatus(team),
    revision: team.revision,
    memberCount,
    pendingJobs: counts.pending,
    waitingJobs: counts.waiting,
    tokenBudget: team.tokenBudget,
    tokensUsed: budget.tokensUsed,
    moneyBudget: team.moneyBudgetNanos === null ? null : nanosToUsd(team.moneyBudgetNanos),
    spent: nanosToUsd(budget.spentNanos),
    unknownCostRuns: budget.unknownCostRuns,
    admissionHeld: budget.admissionHeld,
    createdAt: team.createdAt.toISOString(),
    updatedAt: team.updatedAt.toISOString(),
  };
}

export function toApiTeam(
  team: Team,
  members: TeamMember[],
  statuses: Map<string, MemberStatus>,
  counts: JobCounts,
  budget: TeamBudgetView,
  requestCount: number,
): ApiTeam {
  const { memberCount: _omit, ...summary } = toApiTeamSummary(team, members.length, counts, budget);
  return { ...summary, requestCount, members: members.map((m) => toApiMember(m, statuses.get(m.id) ?? 'ready')) };
}

export function toApiMember(m: TeamMember, status: MemberStatus): ApiMember {
  return { id: m.id, name: m.name, agentId: m.agentId, agentName: m.agentName, conversationId: m.conversationId, status };
}

/** `run` (details only) is the job's run and its setup changes, when the caller looked it up (activity does). */
export function toApiJob(job: Job, receipt: { id: string; status: Job['status'] } | null, details: boolean, run?: ApiJob['run']): ApiJob {
  const base: ApiJob = {
    id: job.id,
    seq: job.seq,
    kind: job.kind,
    memberId: job.memberId,
    conversationId: job.conversationId,
    status: job.status,
    createdAt: job.createdAt.toISOString(),
    completedAt: iso(job.completedAt),
    sourceMemberId: job.sourceMemberId,
    sourceConversationId: job.sourceConversationId,
    parentId: job.parentId,
    rootId: job.rootId,
    receipt,
    waiting: job.status === 'waiting_input' ? ((job.waiting as ApiWaiting | null) ?? null) : null,
    retryOf: job.retryOfJobId ?? null,
  };
  if (!details) return base;
  return { ...base, text: job.text, result: job.result, resultTruncated: job.resultTruncated, error: job.error, ...(run !== undefined ? { run } : {}) };
}
