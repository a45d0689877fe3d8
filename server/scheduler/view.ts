import 'server-only';
import type { Db } from '@/server/db';
import { ownersAtDailyCap, type CapOptions } from '@/server/budgets/daily-cap';
import { teamsAtBudget } from '@/server/budgets/team-budget';
import type { OwnerQueue } from './types';

export type SchedulingCandidate = { jobId: string; conversationId: string; teamId: string; status: string };

export type SchedulingView = {
  queues: OwnerQueue<SchedulingCandidate>[];
  /** Admitted, unfinished jobs holding a slot (waiting_input excluded). */
  activeCount: number;
  /** The same slots per owner, for the shared cap. */
  heldSlots: Map<string, number>;
  /** Conversations running something outside the job system (a person chatting directly). */
  busyConversations: Set<string>;
  /** Running jobs, for reconciliation: their run may have finished or never started. */
  running: Array<{ jobId: string; teamId: string; status: string; runId: string | null; runStatus: string | null }>;
};

type Row = { id: string; teamId: string; ownerId: string; conversationId: string; status: string; runId: string | null; runStatus: string | null; teamStatus: string };

/**
 * Everything one planning pass needs, from one indexed query over teams with unfinished jobs (finished
 * history is never read). Conversation head rule: only the first unfinished job of each conversation can
 * be admitted, and a conversation whose head is running or waiting for input admits nothing.
 */
export function loadSchedulingView(db: Db, budgetOptions: CapOptions = {}): SchedulingView {
  const rows = db.$client
    .prepare(
      `select j.id, j.team_id as teamId, j.owner_id as ownerId, j.conversation_id as conversationId, j.status, j.run_id as runId, r.status as runStatus, t.status as teamStatus
         from teams t indexed by teams_pending_idx
         join jobs j on j.team_id = t.id
         left join runs r on r.id = j.run_id
        where t.has_pending = 1
          and j.status in ('queued','running','waiting_input','resuming','cancelling')
        order by j.seq`,
    )
    .all() as Row[];
  const heads = new Map<string, Row>();
  for (const row of rows) if (!heads.has(row.conversationId)) heads.set(row.conversationId, row);
  const direct = db.$client
    .prepare(`select distinct conversation_id as c from runs where status in ('pending','running')`)
    .all() as Array<{ c: string }>;
  const busy = new Set<string>();
  for (const { c } of direct) busy.add(c);

  // Budgets (ADR 023): a team whose token budget is used up, or an account at the operator's daily cap, admits no
  // new job; its queued jobs wait until the budget is raised or the UTC day turns. Running work finishes, and a
  // job resuming with a person's answer is running work. Only teams with a queued head are looked at.
  const queuedHeads = [...heads.values()].filter((h) => h.status === 'queued' && h.teamStatus === 'ready');
  const heldTeams = teamsAtBudget(db, [...new Set(queuedHeads.map((h) => h.teamId))]);
  const heldOwners = ownersAtDailyCap(db, new Set(queuedHeads.map((h) => h.ownerId)), budgetOptions);

  const byOwner = new Map<string, SchedulingCandidate[]>();
  for (const head of heads.values()) {
    if (head.status !== 'queued' && head.status !== 'resuming') continue;
    // A disconnected (or half-created) team admits nothing until it is reconnected.
    if (head.teamStatus !== 'ready') continue;
    if (head.status === 'queued' && (heldTeams.has(head.teamId) || heldOwners.has(head.ownerId))) continue;
    const list = byOwner.get(head.ownerId) ?? [];
    list.push({ jobId: head.id, conversationId: head.conversationId, teamId: head.teamId, status: head.status });
    byOwner.set(head.ownerId, list);
  }
  const heldSlots = new Map<string, number>();
  for (const row of rows) {
    if (row.status === 'running' || row.status === 'cancelling') heldSlots.set(row.ownerId, (heldSlots.get(row.ownerId) ?? 0) + 1);
  }
  return {
    queues: [...byOwner].map(([ownerId, candidates]) => ({ ownerId, candidates })),
    activeCount: rows.filter((r) => r.status === 'running' || r.status === 'cancelling').length,
    heldSlots,
    busyConversations: busy,
    running: rows
      .filter((r) => r.status === 'running' || r.status === 'cancelling')
      .map((r) => ({ jobId: r.id, teamId: r.teamId, status: r.status, runId: r.runId, runStatus: r.runStatus })),
  };
}
