// Owner-fair admission planner: a pure function of (pending work per owner, free slots, round state).
// No I/O, no clock, no randomness, so the same input always gives the same plan. The rules and their
// reasons are in docs/decisions/004-owner-fair-admission.md. Deliberately free of 'server-only' so
// benchmarks and scripts can import it directly; it touches nothing server-side.
import type { Admission, Candidate, PlanInput, PlanResult, RoundState } from './types';

export type { Admission, Candidate, OwnerQueue, PlanInput, PlanResult, RoundState } from './types';

export function emptyRound(): RoundState {
  return { due: [], served: [] };
}

/** Slots the planner may fill now. Non-finite inputs yield 0 so bad accounting never over-admits. */
export function freeSlots(activeCount: number, maxActive: number): number {
  if (!Number.isFinite(activeCount) || !Number.isFinite(maxActive)) return 0;
  return Math.max(0, Math.floor(maxActive) - Math.ceil(Math.max(0, activeCount)));
}

/**
 * Accepts anything (e.g. parsed JSON) and returns a well-formed round: string owner ids, no
 * duplicates, and an owner in both lists kept only as served (it already had its attempt, so a
 * corrupted state can never hand it a second one).
 */
export function normalizeRound(value: unknown): RoundState {
  if (typeof value !== 'object' || value === null) return emptyRound();
  const raw = value as { due?: unknown; served?: unknown };
  const served = uniqueStrings(raw.served);
  const servedSet = new Set(served);
  const due = uniqueStrings(raw.due).filter((owner) => !servedSet.has(owner));
  return { due, served };
}

function uniqueStrings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  for (const item of value) if (typeof item === 'string') seen.add(item);
  return [...seen];
}

/** Per-owner view of the queue with a cursor past candidates that can no longer be admitted this pass. */
class OwnerCursor<C extends Candidate> {
  private index = 0;
  constructor(
    readonly ownerId: string,
    private readonly candidates: C[],
  ) {}

  /** The owner's first admissible candidate, or undefined. Skipped candidates stay unusable for the
   * rest of the pass (used jobs and conversations only grow), so the cursor never moves back. */
  peek(usedJobs: ReadonlySet<string>, usedConversations: ReadonlySet<string>): C | undefined {
    while (this.index < this.candidates.length) {
      const candidate = this.candidates[this.index]!;
      if (!usedJobs.has(candidate.jobId) && !usedConversations.has(candidate.conversationId)) return candidate;
      this.index += 1;
    }
    return undefined;
  }
}

export function plan<C extends Candidate>(input: PlanInput<C>): PlanResult<C> {
  const start = normalizeRound(input.round);
  let free = freeSlots(input.activeCount, input.maxActive);
  // No capacity: nothing to decide, and the rotation must not move (no one had an attempt).
  if (free === 0) return { admissions: [], round: start };

  // Merge queues by owner (input order kept: it decides the order in which new owners join).
  const owners = new Map<string, OwnerCursor<C>>();
  const merged = new Map<string, C[]>();
  for (const queue of input.queues ?? []) {
    if (typeof queue?.ownerId !== 'string' || !Array.isArray(queue.candidates)) continue;
    const list = merged.get(queue.ownerId) ?? [];
    for (const candidate of queue.candidates) {
      if (typeof candidate?.jobId === 'string' && typeof candidate.conversationId === 'string') list.push(candidate);
    }
    merged.set(queue.ownerId, list);
  }
  for (const [ownerId, list] of merged) owners.set(ownerId, new OwnerCursor(ownerId, list));

  const usedJobs = new Set<string>();
  const usedConversations = new Set<string>(input.busyConversations ?? []);
  const next = (ownerId: string) => owners.get(ownerId)?.peek(usedJobs, usedConversations);
  const hasWork = (ownerId: string) => next(ownerId) !== undefined;

  // Owners due in this round without admissible work drop out; owners with work that are neither
  // due nor already served this round join at the tail.
  const due: string[] = start.due.filter(hasWork);
  const served: string[] = [...start.served];
  const inRound = new Set([...due, ...served]);
  for (const ownerId of owners.keys()) if (!inRound.has(ownerId) && hasWork(ownerId)) due.push(ownerId);

  const admissions: Admission<C>[] = [];
  let cursor = 0; // position in `due`; entries before it have been served or dropped this pass
  while (free > 0) {
    // An admission can only remove work (it uses a job and a conversation), so re-check lazily.
    while (cursor < due.length && !hasWork(due[cursor]!)) cursor += 1;
    if (cursor >= due.length) {
      // Round complete. Every owner with work is in `served` here (work never appears mid-pass),
      // so the new round is the previous order filtered to owners with work.
      const nextRound = served.filter(hasWork);
      if (nextRound.length === 0) break; // no admissible work anywhere: keep the order for later
      due.splice(0, due.length, ...nextRound);
      served.length = 0;
      cursor = 0;
    }
    const ownerId = due[cursor]!;
    const candidate = next(ownerId)!;
    cursor += 1;
    served.push(ownerId);
    usedJobs.add(candidate.jobId);
    usedConversations.add(candidate.conversationId);
    admissions.push({ ownerId, jobId: candidate.jobId, conversationId: candidate.conversationId, candidate });
    free -= 1;
  }

  // Owners still due keep their place only while they have work (drop-out applies to them too).
  const remaining = due.slice(cursor).filter(hasWork);
  return { admissions, round: { due: remaining, served } };
}
