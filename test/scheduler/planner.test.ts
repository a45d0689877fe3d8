import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emptyRound, freeSlots, normalizeRound, plan } from '@/server/scheduler/planner';
import type { Candidate, OwnerQueue, PlanInput, RoundState } from '@/server/scheduler/types';
import { ShareOracle, World } from './world';

const MAX = 8;
const CAP = 6;
const GRACE = 60_000;

const cand = (jobId: string, conversationId = `c-${jobId}`): Candidate => ({ jobId, conversationId });
/** `count` jobs for one owner, each in its own conversation. */
const backlog = (ownerId: string, count: number, from = 0): OwnerQueue => ({
  ownerId,
  candidates: Array.from({ length: count }, (_, i) => cand(`${ownerId}-${from + i}`)),
});
const owners = (result: { admissions: readonly { ownerId: string }[] }) => result.admissions.map((a) => a.ownerId);

/**
 * Oracle for the round rule, independent of how the planner stores its round: an owner admitted a
 * second time since the window opened is only fine when every owner that has admissible work at that
 * moment has already been admitted in the window; that admission opens a new window.
 */
class RoundWatcher {
  private served: Set<string>;
  constructor(initiallyServed: readonly string[] = []) {
    this.served = new Set(initiallyServed);
  }
  /** Call for each admission in order, before applying it. */
  admit(ownerId: string, ownersWithWork: ReadonlySet<string>): void {
    if (this.served.has(ownerId)) {
      const waiting = [...ownersWithWork].filter((owner) => !this.served.has(owner));
      expect(waiting, `${ownerId} got a second admission in the round while others wait`).toEqual([]);
      this.served = new Set([ownerId]);
    } else {
      this.served.add(ownerId);
    }
  }
}

/** Owners that still have an admissible candidate given what is already used. */
function ownersWithWork(
  queues: readonly OwnerQueue[],
  usedJobs: ReadonlySet<string>,
  usedConversations: ReadonlySet<string>,
): Set<string> {
  const result = new Set<string>();
  for (const queue of queues) {
    if (queue.candidates.some((c) => !usedJobs.has(c.jobId) && !usedConversations.has(c.conversationId))) {
      result.add(queue.ownerId);
    }
  }
  return result;
}

/** Runs passes over a World: one pass, then release `releases` running jobs one by one (oldest first),
 * planning after each release. Returns the admitted owners per release. */
function releaseOneByOne(world: World, round: RoundState, releases: number) {
  const perRelease: { finished: string; admitted: string[]; jobs: string[] }[] = [];
  let current = round;
  for (let i = 0; i < releases; i += 1) {
    const oldest = world.running()[0];
    if (!oldest) break;
    world.finish(oldest.jobId);
    const result = plan({ queues: world.queues(), activeCount: world.activeCount, maxActive: MAX, round: current });
    for (const admission of result.admissions) world.admit(admission.jobId);
    current = result.round;
    perRelease.push({ finished: oldest.jobId, admitted: owners(result), jobs: result.admissions.map((a) => a.jobId) });
  }
  return { perRelease, round: current };
}

describe('freeSlots', () => {
  it('is max(0, maxActive − activeCount) and 0 for unusable accounting', () => {
    expect(freeSlots(0, 8)).toBe(8);
    expect(freeSlots(7, 8)).toBe(1);
    expect(freeSlots(8, 8)).toBe(0);
    expect(freeSlots(11, 8)).toBe(0);
    expect(freeSlots(-3, 8)).toBe(8);
    expect(freeSlots(Number.NaN, 8)).toBe(0);
    expect(freeSlots(0, Number.POSITIVE_INFINITY)).toBe(0);
  });
});

describe('normalizeRound', () => {
  it('turns anything into a well-formed, disjoint round', () => {
    expect(normalizeRound(undefined)).toEqual(emptyRound());
    expect(normalizeRound('x')).toEqual(emptyRound());
    expect(normalizeRound({ due: 'a', served: 3 })).toEqual(emptyRound());
    expect(normalizeRound({ due: ['b', 'a', 'b', 7, 'c'], served: ['c', null, 'c'] })).toEqual({
      due: ['b', 'a'],
      served: ['c'],
    });
  });
});

describe('plan: examples', () => {
  it('rotates owners A, B, C, A, B, C… when a single slot is released repeatedly', () => {
    const world = new World();
    for (const owner of ['A', 'B', 'C']) for (let i = 0; i < 10; i += 1) world.add(owner, `${owner}-conv${i}`);
    const first = plan({ queues: world.queues(), activeCount: 0, maxActive: MAX, round: emptyRound() });
    expect(owners(first)).toEqual(['A', 'B', 'C', 'A', 'B', 'C', 'A', 'B']);
    for (const admission of first.admissions) world.admit(admission.jobId);

    const { perRelease } = releaseOneByOne(world, first.round, 12);
    expect(perRelease.map((r) => r.admitted)).toEqual(
      ['C', 'A', 'B', 'C', 'A', 'B', 'C', 'A', 'B', 'C', 'A', 'B'].map((owner) => [owner]),
    );
  });

  it('rotates with a capacity of one slot from an empty start', () => {
    const world = new World();
    for (const owner of ['A', 'B', 'C']) for (let i = 0; i < 4; i += 1) world.add(owner, `${owner}-conv${i}`);
    let round: RoundState = emptyRound();
    const sequence: string[] = [];
    for (let pass = 0; pass < 12; pass += 1) {
      const result = plan({ queues: world.queues(), activeCount: world.activeCount, maxActive: 1, round });
      expect(result.admissions).toHaveLength(1);
      const [admission] = result.admissions;
      sequence.push(admission!.ownerId);
      world.admit(admission!.jobId);
      world.finish(admission!.jobId);
      round = result.round;
    }
    expect(sequence.join('')).toBe('ABCABCABCABC');
    expect(plan({ queues: world.queues(), activeCount: 0, maxActive: 1, round }).admissions).toEqual([]);
  });

  it('admits a light owner next to a flooding owner within one slot release per job', () => {
    const world = new World();
    for (let i = 0; i < 500; i += 1) world.add('H', `H-conv${i % 40}`);
    const filled = plan({ queues: world.queues(), activeCount: 0, maxActive: MAX, round: emptyRound() });
    expect(owners(filled)).toEqual(Array(8).fill('H'));
    for (const admission of filled.admissions) world.admit(admission.jobId);

    const light = Array.from({ length: 5 }, (_, i) => world.add('L', `L-conv${i}`).jobId);
    const { perRelease } = releaseOneByOne(world, filled.round, 9);
    const sequence = perRelease.map((r) => r.admitted.join(''));
    // The light owner is served at the very first release, then every other release: between two
    // of its admissions the flooding owner gets at most one.
    expect(sequence).toEqual(['L', 'H', 'L', 'H', 'L', 'H', 'L', 'H', 'L']);
    expect(perRelease.flatMap((r) => r.jobs).filter((id) => light.includes(id))).toEqual(light);
  });

  it('admits a light owner’s sequential jobs at the release that makes each one admissible', () => {
    const world = new World();
    for (let i = 0; i < 500; i += 1) world.add('H', `H-conv${i % 40}`);
    const filled = plan({ queues: world.queues(), activeCount: 0, maxActive: MAX, round: emptyRound() });
    for (const admission of filled.admissions) world.admit(admission.jobId);

    // Five requests to the same member: one conversation, so only its head is ever admissible.
    const light = Array.from({ length: 5 }, () => world.add('L', 'L-conv').jobId);
    const { perRelease } = releaseOneByOne(world, filled.round, 60);
    const admittedAt = light.map((id) => perRelease.findIndex((r) => r.jobs.includes(id)));
    const finishedAt = light.map((id) => perRelease.findIndex((r) => r.finished === id));
    expect(admittedAt[0]).toBe(0);
    for (let k = 1; k < light.length; k += 1) {
      expect(finishedAt[k - 1]).toBeGreaterThanOrEqual(0);
      expect(admittedAt[k]).toBe(finishedAt[k - 1]);
    }
  });

  it('puts an owner that appears mid-round at the tail of the current round', () => {
    const round: RoundState = { due: ['B', 'C'], served: ['A'] };
    const queues = [backlog('D', 3), backlog('A', 3), backlog('C', 3), backlog('B', 3)];
    const one = plan({ queues, activeCount: 7, maxActive: MAX, round });
    expect(owners(one)).toEqual(['B']);
    expect(one.round).toEqual({ due: ['C', 'D'], served: ['A', 'B'] });

    const rest = plan({ queues, activeCount: 3, maxActive: MAX, round });
    // B, C, then the newcomer D close the round; the next round keeps that order: A, B, C, D.
    expect(owners(rest)).toEqual(['B', 'C', 'D', 'A', 'B']);
    expect(rest.round).toEqual({ due: ['C', 'D'], served: ['A', 'B'] });
  });

  it('adds several newcomers in queue order, after the owners already due', () => {
    const round: RoundState = { due: ['B'], served: ['A'] };
    const queues = [backlog('Y', 2), backlog('A', 2), backlog('X', 2), backlog('B', 2)];
    const result = plan({ queues, activeCount: 4, maxActive: MAX, round });
    expect(owners(result)).toEqual(['B', 'Y', 'X', 'A']);
    expect(result.round).toEqual({ due: ['B', 'Y', 'X'], served: ['A'] });
  });

  it('drops an owner whose queue empties and brings it back at the tail when it has work again', () => {
    const queuesWith = (withB: boolean) =>
      [backlog('A', 9), withB ? backlog('B', 9) : null, backlog('C', 9), backlog('D', 9)].filter(
        (q): q is OwnerQueue => q !== null,
      );
    let round: RoundState = emptyRound();
    const sequence: string[] = [];
    const pass = (withB: boolean) => {
      const result = plan({ queues: queuesWith(withB), activeCount: 7, maxActive: MAX, round });
      sequence.push(...owners(result));
      round = result.round;
    };
    pass(true); // A
    pass(false); // B has nothing admissible: skipped, C
    expect(round).toEqual({ due: ['D'], served: ['A', 'C'] });
    pass(true); // B is back, behind D
    expect(round).toEqual({ due: ['B'], served: ['A', 'C', 'D'] });
    pass(true);
    pass(true);
    pass(true);
    expect(sequence.join('')).toBe('ACDBAC');
  });

  it('keeps a served owner whose queue empties out of the round until the next round', () => {
    // A had its attempt; its queue is empty while B is served…
    const first = plan({
      queues: [backlog('B', 2), backlog('C', 2)],
      activeCount: 7,
      maxActive: MAX,
      round: { due: ['B', 'C'], served: ['A'] },
    });
    expect(owners(first)).toEqual(['B']);
    expect(first.round).toEqual({ due: ['C'], served: ['A', 'B'] });
    // …then A has work again: C, still due, goes first; A waits for the next round.
    const refilled = plan({
      queues: [backlog('A', 2), backlog('B', 2), backlog('C', 2)],
      activeCount: 6,
      maxActive: MAX,
      round: first.round,
    });
    expect(owners(refilled)).toEqual(['C', 'A']);
    expect(refilled.round).toEqual({ due: ['B', 'C'], served: ['A'] });
  });

  it('gives spare capacity to whoever still has work (mixed backlogs)', () => {
    const queues = [backlog('A', 3), backlog('B', 1), backlog('C', 10)];
    const result = plan({ queues, activeCount: 0, maxActive: MAX, round: emptyRound() });
    expect(owners(result)).toEqual(['A', 'B', 'C', 'A', 'C', 'A', 'C', 'C']);
    expect(result.admissions.map((a) => a.jobId)).toEqual(['A-0', 'B-0', 'C-0', 'A-1', 'C-1', 'A-2', 'C-2', 'C-3']);
    // The round in progress started at the fourth C admission; B left with no work.
    expect(result.round).toEqual({ due: [], served: ['C'] });
  });

  it('admits in each owner’s own FIFO order, skipping busy and already-used conversations', () => {
    const queues: OwnerQueue[] = [
      { ownerId: 'A', candidates: [cand('a1', 'x'), cand('a2', 'x'), cand('a3', 'y'), cand('a4', 'z')] },
      { ownerId: 'B', candidates: [cand('b1', 'y'), cand('b2', 'w'), cand('b1', 'y')] },
    ];
    const result = plan({ queues, activeCount: 0, maxActive: MAX, round: emptyRound(), busyConversations: ['z'] });
    expect(result.admissions.map((a) => `${a.ownerId}:${a.jobId}`)).toEqual(['A:a1', 'B:b1', 'B:b2']);
  });

  it('admits nothing and leaves the round unchanged when no slot is free', () => {
    const round: RoundState = { due: ['B', 'C'], served: ['A'] };
    const queues = [backlog('A', 3), backlog('B', 3), backlog('C', 3), backlog('D', 3)];
    for (const activeCount of [8, 9, 100]) {
      const result = plan({ queues, activeCount, maxActive: MAX, round });
      expect(result.admissions).toEqual([]);
      expect(result.round).toEqual(round);
    }
  });

  it('keeps the rotation order when free slots find no work at all', () => {
    const round: RoundState = { due: ['C'], served: ['A', 'B'] };
    const result = plan({ queues: [], activeCount: 2, maxActive: MAX, round });
    expect(result).toEqual({ admissions: [], round: { due: [], served: ['A', 'B'] } });
    const later = plan({ queues: [backlog('B', 1), backlog('C', 1), backlog('A', 1)], activeCount: 0, maxActive: 2, round: result.round });
    // C is new to the round in progress, so it goes first; then the next round starts with A.
    expect(owners(later)).toEqual(['C', 'A']);
  });

  it('starts safely from an empty, missing or malformed round', () => {
    const queues = [backlog('A', 2), backlog('B', 2)];
    for (const round of [undefined, null, emptyRound(), { due: 5 } as unknown as RoundState]) {
      expect(owners(plan({ queues, activeCount: 6, maxActive: MAX, round }))).toEqual(['A', 'B']);
    }
  });

  it('passes the caller’s candidate through and produces a JSON-safe round', () => {
    const candidate = { jobId: 'j1', conversationId: 'c1', teamId: 't1' };
    const result = plan({ queues: [{ ownerId: 'A', candidates: [candidate] }], activeCount: 0, maxActive: MAX });
    expect(result.admissions[0]!.candidate).toBe(candidate);
    expect(result.admissions[0]!.candidate.teamId).toBe('t1');
    expect(JSON.parse(JSON.stringify(result.round))).toEqual(result.round);
  });
});

describe('plan: the shared cap', () => {
  const shared = { maxActive: MAX, maxPerOwnerWhenShared: CAP };

  it('lets an owner that is alone fill every slot (work-conserving), also past the cap', () => {
    const result = plan({ ...shared, queues: [backlog('F', 20)], activeCount: 0, now: 0, sharedGraceMs: GRACE });
    expect(owners(result)).toEqual(Array(8).fill('F'));
    // Holding 6 and 7 while alone, it still gets the next slot.
    for (const held of [6, 7]) {
      const more = plan({ ...shared, queues: [backlog('F', 20)], activeCount: held, heldSlots: { F: held } });
      expect(owners(more)).toEqual(Array(MAX - held).fill('F'));
    }
  });

  it('admits an owner up to 6 slots, not a 7th, while another owner has admissible work', () => {
    // At 5 it gets the 6th slot (the limit); at 6 it is held back and the other owner takes the rest.
    const result = plan({ ...shared, queues: [backlog('F', 20), backlog('S', 20)], activeCount: 5, heldSlots: { F: 5 } });
    expect(owners(result)).toEqual(['F', 'S', 'S']);
    const atCap = plan({ ...shared, queues: [backlog('F', 20), backlog('S', 20)], activeCount: 6, heldSlots: { F: 6 } });
    expect(owners(atCap)).toEqual(['S', 'S']);
  });

  it('does not admit an owner already past the cap (7, taken while alone) once another owner has work', () => {
    const result = plan({ ...shared, queues: [backlog('F', 20), backlog('N', 1)], activeCount: 7, heldSlots: { F: 7 } });
    expect(owners(result)).toEqual(['N']);
  });

  it('keeps a slot free rather than give a 7th to the flooder while another owner holds a slot', () => {
    // S's next job is blocked behind its running conversation head, so the caller lists no candidate for S:
    // S has no admissible work, but it holds a slot, so it is present and the 8th slot stays free for it.
    const result = plan({ ...shared, queues: [backlog('F', 20)], activeCount: 7, heldSlots: { F: 6, S: 1 } });
    expect(result.admissions).toEqual([]);
  });

  it('remembers a departed owner for the grace window, then lets the lone owner fill up', () => {
    // t=0: S holds a slot. Later its job has finished and its next one waits for a person's answer (not listed,
    // holds no slot): S is absent, remembered until the grace window ends.
    const first = plan({ ...shared, queues: [backlog('F', 20)], activeCount: 7, heldSlots: { F: 6, S: 1 }, now: 0, sharedGraceMs: GRACE });
    expect(first.round.seen).toEqual({ F: 0, S: 0 });
    const at = (now: number) =>
      plan({ ...shared, queues: [backlog('F', 20)], activeCount: 6, heldSlots: { F: 6 }, now, sharedGraceMs: GRACE, round: first.round });
    const inside = at(GRACE - 1);
    expect(inside.admissions).toEqual([]);
    expect(inside.round.seen).toEqual({ F: GRACE - 1, S: 0 });
    const after = at(GRACE);
    expect(owners(after)).toEqual(['F', 'F']);
    expect(after.round.seen).toEqual({ F: GRACE });
  });

  it('admits a newcomer within two releases of the slots the flooder cannot take', () => {
    // F floods long jobs next to S's short ones: F is held at 6 while S holds the other 2.
    const world = new World();
    for (let i = 0; i < 100; i += 1) world.add('F', `F-conv${i}`);
    for (let i = 0; i < 2; i += 1) world.add('S', `S-conv${i}`);
    const heldSlots = () => {
      const map = new Map<string, number>();
      for (const job of world.running()) map.set(job.ownerId, (map.get(job.ownerId) ?? 0) + 1);
      return map;
    };
    let round = emptyRound();
    const pass = () => {
      const result = plan({ ...shared, queues: world.queues(), activeCount: world.activeCount, heldSlots: heldSlots(), round });
      for (const admission of result.admissions) world.admit(admission.jobId);
      round = result.round;
      return owners(result);
    };
    expect(pass()).toEqual(['F', 'S', 'F', 'S', 'F', 'F', 'F', 'F']);
    for (let i = 2; i < 20; i += 1) world.add('S', `S-conv${i}`);
    world.add('N', 'N-conv');
    // Only S's short jobs end (F's long ones keep running). S was waiting first, so it gets the first release;
    // the newcomer gets the second, before S's second turn; F gets none.
    const release = () => {
      world.finish(world.running().find((job) => job.ownerId === 'S')!.jobId);
      return pass();
    };
    expect([release(), release(), release()]).toEqual([['S'], ['N'], ['S']]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const OWNER_POOL = ['o0', 'o1', 'o2', 'o3', 'o4', 'o5'];

/** Arbitrary single-pass input. Jobs come from a pool with a fixed conversation each (a job id never
 * changes conversation), but may repeat, share conversations across owners, and owners may repeat. */
const passInput = fc
  .record({
    jobConversations: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 30 }),
    queues: fc.array(
      fc.record({ owner: fc.constantFrom(...OWNER_POOL), jobs: fc.array(fc.nat(), { maxLength: 12 }) }),
      { maxLength: 8 },
    ),
    activeCount: fc.integer({ min: -2, max: 12 }),
    maxActive: fc.integer({ min: 0, max: 10 }),
    round: fc.oneof(
      fc.record({
        due: fc.uniqueArray(fc.constantFrom(...OWNER_POOL, 'gone')),
        served: fc.uniqueArray(fc.constantFrom(...OWNER_POOL, 'gone')),
      }),
      fc.anything(),
    ),
    busy: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 4 }),
    busyAsSet: fc.boolean(),
  })
  .map(({ jobConversations, queues, activeCount, maxActive, round, busy, busyAsSet }) => {
    const job = (n: number): Candidate => {
      const index = n % jobConversations.length;
      return { jobId: `j${index}`, conversationId: `c${jobConversations[index]}` };
    };
    const busyConversations = busy.map((c) => `c${c}`);
    const input: PlanInput = {
      queues: queues.map((q) => ({ ownerId: q.owner, candidates: q.jobs.map(job) })),
      activeCount,
      maxActive,
      round: round as RoundState,
      busyConversations: busyAsSet ? new Set(busyConversations) : busyConversations,
    };
    return input;
  });

describe('plan: properties of one pass', () => {
  it('respects capacity, admits only listed jobs, each once, one per conversation, never a busy one', () => {
    fc.assert(
      fc.property(passInput, (input) => {
        const result = plan(input);
        const free = freeSlots(input.activeCount, input.maxActive);
        expect(result.admissions.length).toBeLessThanOrEqual(free);
        expect(Math.max(0, input.activeCount) + result.admissions.length).toBeLessThanOrEqual(
          Math.max(input.maxActive, Math.max(0, input.activeCount)),
        );
        const busy = new Set(input.busyConversations ?? []);
        const jobIds = new Set<string>();
        const conversations = new Set<string>();
        for (const admission of result.admissions) {
          const listed = input.queues.some(
            (q) => q.ownerId === admission.ownerId && q.candidates.includes(admission.candidate),
          );
          expect(listed).toBe(true);
          expect(admission.jobId).toBe(admission.candidate.jobId);
          expect(admission.conversationId).toBe(admission.candidate.conversationId);
          expect(busy.has(admission.conversationId)).toBe(false);
          expect(jobIds.has(admission.jobId)).toBe(false);
          expect(conversations.has(admission.conversationId)).toBe(false);
          jobIds.add(admission.jobId);
          conversations.add(admission.conversationId);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is work-conserving: fills every free slot it can', () => {
    fc.assert(
      fc.property(passInput, (input) => {
        const busy = new Set(input.busyConversations ?? []);
        const admissibleConversations = new Set(
          input.queues.flatMap((q) => q.candidates.map((c) => c.conversationId)).filter((c) => !busy.has(c)),
        );
        const free = freeSlots(input.activeCount, input.maxActive);
        const result = plan(input);
        expect(result.admissions.length).toBe(Math.min(free, admissibleConversations.size));
        if (free > 0 && admissibleConversations.size > 0) expect(result.admissions.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('never gives an owner a second admission in a round while another owner with work waits', () => {
    fc.assert(
      fc.property(passInput, (input) => {
        const start = normalizeRound(input.round);
        const watcher = new RoundWatcher(start.served);
        const usedJobs = new Set<string>();
        const usedConversations = new Set<string>(input.busyConversations ?? []);
        for (const admission of plan(input).admissions) {
          watcher.admit(admission.ownerId, ownersWithWork(input.queues, usedJobs, usedConversations));
          usedJobs.add(admission.jobId);
          usedConversations.add(admission.conversationId);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic and returns a well-formed, JSON-safe round', () => {
    fc.assert(
      fc.property(passInput, (input) => {
        const a = plan(input);
        const b = plan(input);
        expect(b).toEqual(a);
        expect(JSON.parse(JSON.stringify(a.round))).toEqual(a.round);
        const { due, served } = a.round;
        expect(new Set(due).size).toBe(due.length);
        expect(new Set(served).size).toBe(served.length);
        expect(due.filter((owner) => served.includes(owner))).toEqual([]);
        if (freeSlots(input.activeCount, input.maxActive) === 0) {
          expect(a.admissions).toEqual([]);
          expect(a.round).toEqual(normalizeRound(input.round));
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** The single-pass input plus the shared cap: slots held per owner (sometimes unusable), a cap, a clock and a
 * remembered presence per owner. */
const sharedPassInput = fc
  .record({
    base: passInput,
    held: fc.dictionary(fc.constantFrom(...OWNER_POOL, 'gone'), fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(Number.NaN)), { maxKeys: 4 }),
    cap: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    now: fc.integer({ min: 0, max: 100 }),
    graceMs: fc.integer({ min: 0, max: 60 }),
    seen: fc.dictionary(fc.constantFrom(...OWNER_POOL, 'gone'), fc.integer({ min: -50, max: 150 }), { maxKeys: 4 }),
  })
  .map(({ base, held, cap, now, graceMs, seen }): PlanInput => ({
    ...base,
    heldSlots: held,
    maxPerOwnerWhenShared: cap,
    now,
    sharedGraceMs: graceMs,
    round: { ...normalizeRound(base.round), seen },
  }));

/** Oracle for one pass under the cap, from the rule: presence = holds a slot, has an unused admissible
 * candidate, or was seen less than the grace window ago. */
function capOracle(input: PlanInput) {
  const cap = input.maxPerOwnerWhenShared ?? Infinity;
  const held = new Map<string, number>();
  for (const [owner, count] of Object.entries(input.heldSlots ?? {})) held.set(owner, Number.isNaN(count) ? Infinity : count);
  const seen = Object.entries((input.round as RoundState).seen ?? {});
  const now = input.now!;
  const remembered = new Set(seen.filter(([, at]) => now - Math.min(at, now) < (input.sharedGraceMs ?? 0)).map(([o]) => o));
  return {
    held: (owner: string) => held.get(owner) ?? 0,
    admitted(owner: string) {
      held.set(owner, (held.get(owner) ?? 0) + 1);
    },
    capped(owner: string, withWork: ReadonlySet<string>) {
      if ((held.get(owner) ?? 0) < cap) return false;
      const present = new Set([...withWork, ...remembered, ...[...held].filter(([, n]) => n > 0).map(([o]) => o)]);
      return [...present].some((other) => other !== owner);
    },
  };
}

describe('plan: properties of the shared cap', () => {
  it('never admits an owner at the cap while another owner is present, and leaves a slot free only for that reason', () => {
    fc.assert(
      fc.property(sharedPassInput, (input) => {
        const oracle = capOracle(input);
        const watcher = new RoundWatcher(normalizeRound(input.round).served);
        const usedJobs = new Set<string>();
        const usedConversations = new Set<string>(input.busyConversations ?? []);
        const result = plan(input);
        for (const admission of result.admissions) {
          const withWork = ownersWithWork(input.queues, usedJobs, usedConversations);
          expect(oracle.capped(admission.ownerId, withWork), `${admission.ownerId} admitted past the cap`).toBe(false);
          watcher.admit(admission.ownerId, new Set([...withWork].filter((owner) => !oracle.capped(owner, withWork))));
          oracle.admitted(admission.ownerId);
          usedJobs.add(admission.jobId);
          usedConversations.add(admission.conversationId);
        }
        if (result.admissions.length < freeSlots(input.activeCount, input.maxActive)) {
          const withWork = ownersWithWork(input.queues, usedJobs, usedConversations);
          for (const owner of withWork) expect(oracle.capped(owner, withWork), `${owner} left waiting beside a free slot`).toBe(true);
        }
        // Presence is remembered for everyone present after the pass.
        const withWork = ownersWithWork(input.queues, usedJobs, usedConversations);
        for (const owner of withWork) expect(result.round.seen?.[owner]).toBe(input.now);
      }),
      { numRuns: 500 },
    );
  });
});

type Command =
  | { t: 'add'; owner: number; conversation: number; count: number }
  | { t: 'finish'; picks: number[] }
  | { t: 'tick'; ms: number }
  | { t: 'pass' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    t: fc.constant('add' as const),
    owner: fc.integer({ min: 0, max: 4 }),
    conversation: fc.integer({ min: 0, max: 5 }),
    count: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ t: fc.constant('finish' as const), picks: fc.array(fc.nat(), { maxLength: 8 }) }),
  fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 40 }) }),
  fc.constant({ t: 'pass' as const }),
);

describe('plan: properties over many passes', () => {
  it('keeps every invariant while jobs arrive and finish between passes', () => {
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 80 }),
        fc.boolean(),
        fc.integer({ min: 1, max: MAX + 1 }),
        fc.constantFrom(0, 30, 100),
        (commands, passBusy, cap, graceMs) => {
          const world = new World();
          const watcher = new RoundWatcher();
          const share = new ShareOracle(cap, graceMs);
          let round: RoundState = emptyRound();
          let now = 0;
          for (const cmd of commands) {
            if (cmd.t === 'tick') {
              now += cmd.ms;
            } else if (cmd.t === 'add') {
              for (let i = 0; i < cmd.count; i += 1) world.add(`o${cmd.owner}`, `o${cmd.owner}-c${cmd.conversation}`);
            } else if (cmd.t === 'finish') {
              for (const pick of cmd.picks) {
                const running = world.running();
                if (running.length > 0) world.finish(running[pick % running.length]!.jobId);
              }
            } else {
              const busyConversations = passBusy ? world.running().map((job) => job.conversationId) : undefined;
              const heldSlots: Record<string, number> = {};
              for (const job of world.running()) heldSlots[job.ownerId] = (heldSlots[job.ownerId] ?? 0) + 1;
              const result = plan({
                queues: world.queues(),
                activeCount: world.activeCount,
                maxActive: MAX,
                round,
                busyConversations,
                heldSlots,
                maxPerOwnerWhenShared: cap,
                sharedGraceMs: graceMs,
                now,
              });
              for (const admission of result.admissions) {
                const admissible = world.queues().some((q) => q.candidates.some((c) => c.jobId === admission.jobId));
                expect(admissible, `${admission.jobId} was not admissible`).toBe(true);
                expect(share.capped(world, admission.ownerId, now), `${admission.ownerId} admitted past the cap`).toBe(false);
                watcher.admit(admission.ownerId, share.ownersWithWork(world, now));
                world.admit(admission.jobId);
              }
              expect(world.activeCount).toBeLessThanOrEqual(MAX);
              const conversationsRunning = world.running().map((job) => job.conversationId);
              expect(new Set(conversationsRunning).size).toBe(conversationsRunning.length);
              // Work-conserving: a free slot left over means every owner with admissible work is held back by the cap.
              if (world.activeCount < MAX) expect([...share.ownersWithWork(world, now)]).toEqual([]);
              share.observe(world, now);
              // The runtime may keep the round as JSON.
              round = JSON.parse(JSON.stringify(result.round)) as RoundState;
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  // Without the cap: it only ever takes an owner holding 6 slots out of a round, on purpose.
  it('keeps admissions per owner within one of each other while every owner stays backlogged', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.array(fc.array(fc.nat(), { maxLength: 8 }), { minLength: 1, maxLength: 150 }),
        (ownerCount, finishesPerPass) => {
          const ids = Array.from({ length: ownerCount }, (_, i) => `owner${i}`);
          const admitted = new Map(ids.map((id) => [id, 0]));
          let running: string[] = [];
          let round: RoundState = emptyRound();
          const pass = () => {
            // Every owner keeps a backlog: its next few jobs, each in its own conversation.
            const queues = ids.map((id) => backlog(id, MAX, admitted.get(id)!));
            const result = plan({ queues, activeCount: running.length, maxActive: MAX, round });
            expect(running.length + result.admissions.length).toBe(MAX);
            for (const admission of result.admissions) {
              admitted.set(admission.ownerId, admitted.get(admission.ownerId)! + 1);
              running.push(admission.jobId);
            }
            round = result.round;
            const counts = [...admitted.values()];
            expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
          };
          pass();
          for (const picks of finishesPerPass) {
            for (const pick of picks) {
              if (running.length > 0) running = running.filter((_, i) => i !== pick % running.length);
            }
            pass();
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
