import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admissionOrder } from '@/server/scheduler/why-waiting';
import type { SchedulingCandidate } from '@/server/scheduler/view';

type Queue = { ownerId: string; candidates: SchedulingCandidate[] };

/**
 * An independent statement of the rotation (docs/decisions/004): owners still due this round go first in their
 * order, then owners new to the round in queue order; after that every round follows the order in which owners
 * were served (those already served this round first), one candidate per owner per round, until all are taken.
 */
function oracle(queues: Queue[], due: string[], served: string[], busy: Set<string>): Map<string, number> {
  const left = new Map(queues.map((q) => [q.ownerId, q.candidates.filter((c) => !busy.has(c.conversationId))]));
  const hasWork = (o: string) => (left.get(o)?.length ?? 0) > 0;
  const servedSet = new Set(served);
  const dueNow = [...new Set(due)].filter((o) => !servedSet.has(o) && hasWork(o));
  const first = [...dueNow, ...queues.map((q) => q.ownerId).filter((o) => !dueNow.includes(o) && !servedSet.has(o) && hasWork(o))];
  const rotation = [...new Set([...served, ...first])];
  const order: string[] = [];
  const take = (o: string) => {
    const next = left.get(o)!.shift()!;
    order.push(next.jobId);
  };
  for (const o of first) take(o);
  while ([...left.values()].some((l) => l.length > 0)) for (const o of rotation) if (hasWork(o)) take(o);
  return new Map(order.map((id, i) => [id, i]));
}

const owners = ['o1', 'o2', 'o3', 'o4'];
const world = fc
  .record({
    sizes: fc.array(fc.nat(5), { minLength: 1, maxLength: 4 }),
    due: fc.subarray(owners),
    served: fc.subarray(owners),
    busyEvery: fc.integer({ min: 0, max: 4 }),
  })
  .map(({ sizes, due, served, busyEvery }) => {
    let n = 0;
    const busy = new Set<string>();
    const queues: Queue[] = sizes.map((size, i) => ({
      ownerId: owners[i]!,
      candidates: Array.from({ length: size }, () => {
        n += 1;
        const conversationId = `c${n}`;
        if (busyEvery > 0 && n % busyEvery === 0) busy.add(conversationId);
        return { jobId: `j${n}`, conversationId, teamId: 't', status: 'queued' };
      }),
    }));
    return { queues, due, served, busy };
  });

describe('"n ahead of it": the planner\'s rotation against an independent oracle', () => {
  it('every admissible candidate gets the oracle\'s position; busy conversations get none', () => {
    fc.assert(
      fc.property(world, ({ queues, due, served, busy }) => {
        const got = admissionOrder(queues, { due, served }, busy);
        expect(got).toEqual(oracle(queues, due, served, busy));
        for (const q of queues) for (const c of q.candidates) if (busy.has(c.conversationId)) expect(got.has(c.jobId)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('a concrete round: the owner still due goes first, the owner served this round waits for the next', () => {
    const q = (ownerId: string, ...ids: string[]): Queue => ({ ownerId, candidates: ids.map((jobId) => ({ jobId, conversationId: jobId, teamId: 't', status: 'queued' })) });
    const got = admissionOrder([q('a', 'a1', 'a2'), q('b', 'b1'), q('c', 'c1')], { due: ['c'], served: ['a'] });
    expect(Object.fromEntries(got)).toEqual({ c1: 0, b1: 1, a1: 2, a2: 3 });
  });
});
