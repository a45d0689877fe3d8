import 'server-only';

// Why queued work waits: a pure function of the scheduling view (view.ts) and the planner's rotation, so the answer
// a person reads is the scheduler's own rule, never a second guess at it. No I/O and no clock, like planner.ts.
import type { ApiWaitReason } from '@/lib/types/team';
import { plan, type OwnerQueue, type RoundState } from './planner';
import type { SchedulingCandidate, SchedulingView } from './view';

export type WhyWaitingView = Pick<SchedulingView, 'queues' | 'busyConversations' | 'unfinished' | 'heldTeams' | 'heldOwners'>;

/**
 * The order in which the planner would admit today's admissible candidates if slots freed up one after another
 * and nothing else changed: one planning pass with room for all of them, from the current rotation. The shared
 * per-owner cap is left out on purpose — it depends on who else is present when each slot frees, so it can only
 * make the wait longer, never shorter, than the position told.
 */
export function admissionOrder(
  queues: readonly OwnerQueue<SchedulingCandidate>[],
  round: RoundState | null | undefined,
  busyConversations: ReadonlySet<string> = new Set(),
): Map<string, number> {
  const admissible = queues.map((q) => ({ ownerId: q.ownerId, candidates: q.candidates.filter((c) => !busyConversations.has(c.conversationId)) }));
  const total = admissible.reduce((n, q) => n + q.candidates.length, 0);
  const result = plan({ queues: admissible, activeCount: 0, maxActive: total, round });
  return new Map(result.admissions.map((a, index) => [a.jobId, index]));
}

/**
 * A reason for each queued (or resuming: an answer waiting for its slot) job among `jobIds`, first rule that holds:
 * the team is not ready → its budget (or the account's daily cap) holds it → an earlier job of the same member's
 * conversation is the head (waiting for the person's answer, or any other unfinished state) → the member's
 * conversation is busy with a direct run → it waits for a slot, `ahead` being its place in the rotation.
 */
export function whyWaiting(view: WhyWaitingView, round: RoundState | null | undefined, jobIds: ReadonlySet<string>): Map<string, ApiWaitReason> {
  const order = admissionOrder(view.queues, round, view.busyConversations);
  const heads = new Map<string, { id: string; status: string }>();
  const reasons = new Map<string, ApiWaitReason>();
  for (const row of view.unfinished) {
    const head = heads.get(row.conversationId);
    if (!head) heads.set(row.conversationId, { id: row.id, status: row.status });
    if (!jobIds.has(row.id) || (row.status !== 'queued' && row.status !== 'resuming')) continue;
    reasons.set(row.id, reasonFor(row, head, view, order));
  }
  return reasons;
}

function reasonFor(
  row: WhyWaitingView['unfinished'][number],
  head: { id: string; status: string } | undefined,
  view: WhyWaitingView,
  order: ReadonlyMap<string, number>,
): ApiWaitReason {
  if (row.teamStatus !== 'ready') return { kind: 'team_not_ready' };
  // A resuming job is running work (ADR 023): budgets never hold an answer.
  if (row.status === 'queued' && view.heldTeams.has(row.teamId)) return { kind: 'team_budget' };
  if (row.status === 'queued' && view.heldOwners.has(row.ownerId)) return { kind: 'daily_cap' };
  if (head) return head.status === 'waiting_input' ? { kind: 'your_answer', jobId: head.id } : { kind: 'behind', jobId: head.id };
  if (view.busyConversations.has(row.conversationId)) return { kind: 'member_busy' };
  const ahead = order.get(row.id);
  // Not in the order only if the view held it for a reason above; counted last rather than guessed.
  return { kind: 'slot', ahead: ahead ?? order.size };
}
