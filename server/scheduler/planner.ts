import 'server-only';

// Owner-fair admission planner: a pure function of (pending work per owner, free slots, round state).
// No I/O, no clock, no randomness, so the same input always gives the same plan. The rules and their
// reasons are in docs/decisions/004-owner-fair-admission.md. Benchmarks and scripts import it under
// `tsx --conditions=react-server`, where 'server-only' is empty.
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
 * corrupted state can never hand it a second one). `seen` keeps only finite times and is omitted when empty.
 */
export function normalizeRound(value: unknown): RoundState {
  if (typeof value !== 'object' || value === null) return emptyRound();
  const raw = value as { due?: unknown; served?: unknown; seen?: unknown };
  const served = uniqueStrings(raw.served);
  const servedSet = new Set(served);
  const due = uniqueStrings(raw.due).filter((owner) => !servedSet.has(owner));
  const seen = finiteTimes(raw.seen);
  return Object.keys(seen).length > 0 ? { due, served, seen } : { due, served };
}

function uniqueStrings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  for (const item of value) if (typeof item === 'string') seen.add(item);
  return [...seen];
}

function finiteTimes(value: unknown): Record<string, number> {
  const result: Record<string, number> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return result;
  for (const [owner, time] of Object.entries(value)) if (typeof time === 'number' && Number.isFinite(time)) result[owner] = time;
  return result;
}

/** Slots held per owner. A count that is not a finite number is treated as unbounded, so bad
 * accounting can only make the cap stricter, never let an owner past it. */
function heldCounts(value: PlanInput['heldSlots']): Map<string, number> {
  const result = new Map<string, number>();
  if (!value) return result;
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  for (const [owner, count] of entries) {
    if (typeof owner !== 'string') continue;
    const n = typeof count === 'number' && Number.isFinite(count) ? Math.max(0, Math.ceil(count)) : Infinity;
    if (n > 0) result.set(owner, n);
  }
  return result;
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

  // The shared cap. An owner is present while it holds a slot, has admissible work, or was present within the
  // grace window; an owner at the cap is admitted again only when no other owner is present (alone).
  const held = heldCounts(input.heldSlots);
  const cap = typeof input.maxPerOwnerWhenShared === 'number' && input.maxPerOwnerWhenShared >= 1 ? Math.floor(input.maxPerOwnerWhenShared) : Infinity;
  const now = typeof input.now === 'number' && Number.isFinite(input.now) ? input.now : undefined;
  const graceMs = typeof input.sharedGraceMs === 'number' && input.sharedGraceMs > 0 ? input.sharedGraceMs : 0;
  const remembered = new Map<string, number>();
  if (now !== undefined && graceMs > 0) {
    for (const [ownerId, at] of Object.entries(start.seen ?? {})) {
      // A time in the future (the clock went back) counts as now, so it still expires.
      const clamped = Math.min(at, now);
      if (now - clamped < graceMs) remembered.set(ownerId, clamped);
    }
  }
  const present = (ownerId: string) => (held.get(ownerId) ?? 0) > 0 || next(ownerId) !== undefined || remembered.has(ownerId);
  // Fixed for the pass: admissions only add held slots to owners that have queues.
  const everyone = new Set([...owners.keys(), ...held.keys(), ...remembered.keys()]);
  const capped = (ownerId: string) => {
    if ((held.get(ownerId) ?? 0) < cap) return false;
    for (const other of everyone) if (other !== ownerId && present(other)) return true;
    return false;
  };
  /** Admissible for this owner now: an unused candidate, and not held back by the cap. */
  const hasWork = (ownerId: string) => next(ownerId) !== undefined && !capped(ownerId);

  /** Who is present after this pass, for the next passes' grace window. */
  const seenAfter = (): Record<string, number> | undefined => {
    if (now === undefined) return undefined;
    const seen: Record<string, number> = {};
    for (const [ownerId, at] of remembered) seen[ownerId] = at;
    for (const ownerId of everyone) if ((held.get(ownerId) ?? 0) > 0 || next(ownerId) !== undefined) seen[ownerId] = now;
    return seen;
  };
  const withSeen = (round: { due: string[]; served: string[] }): RoundState => {
    const seen = seenAfter();
    return seen && Object.keys(seen).length > 0 ? { ...round, seen } : round;
  };

  // No capacity: nothing to decide, and the rotation must not move (no one had an attempt).
  if (free === 0) return { admissions: [], round: withSeen({ due: [...start.due], served: [...start.served] }) };

  // Owners due in this round without admissible work drop out; owners with work that are neither
  // due nor already served this round join at the tail.
  const due: string[] = start.due.filter(hasWork);
  const served: string[] = [...start.served];
  const inRound = new Set([...due, ...served]);
  for (const ownerId of owners.keys()) if (!inRound.has(ownerId) && hasWork(ownerId)) due.push(ownerId);

  const admissions: Admission<C>[] = [];
  let cursor = 0; // position in `due`; entries before it have been served or dropped this pass
  while (free > 0) {
    // An admission can only remove work (it uses a job and a conversation, or brings its owner to the cap),
    // so re-check lazily.
    while (cursor < due.length && !hasWork(due[cursor]!)) cursor += 1;
    if (cursor >= due.length) {
      // Round complete: the next round is the previous order filtered to owners with work. Any owner with work
      // outside it joins at the tail (possible only when malformed input makes another owner's presence vanish
      // mid-pass and lifts a cap).
      const servedSet = new Set(served);
      const nextRound = [...served.filter(hasWork), ...[...owners.keys()].filter((o) => !servedSet.has(o) && hasWork(o))];
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
    held.set(ownerId, (held.get(ownerId) ?? 0) + 1);
    admissions.push({ ownerId, jobId: candidate.jobId, conversationId: candidate.conversationId, candidate });
    free -= 1;
  }

  // Owners still due keep their place only while they have work (drop-out applies to them too).
  const remaining = due.slice(cursor).filter(hasWork);
  return { admissions, round: withSeen({ due: remaining, served }) };
}
