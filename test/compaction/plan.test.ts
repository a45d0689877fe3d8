import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepTokensFor, planCompaction, type PlanItem, type PlanInput } from '@/server/agents/compaction/plan';

/**
 * A conversation as the graph writes it: turns of a human message, then model steps; a step may call tools, each
 * answered by one result after it (in any order, some left unanswered: a cancelled run, a declined approval).
 */
const conversation = fc
  .array(
    fc.record({
      human: fc.integer({ min: 1, max: 400 }),
      steps: fc.array(
        fc.record({
          tokens: fc.integer({ min: 1, max: 300 }),
          results: fc.array(fc.record({ tokens: fc.integer({ min: 1, max: 600 }), answered: fc.boolean() }), { maxLength: 3 }),
          shuffle: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((turns) => {
    const items: PlanItem[] = [];
    let n = 0;
    for (const turn of turns) {
      items.push({ tokens: turn.human });
      for (const step of turn.steps) {
        const calls = step.results.map(() => `call-${n++}`);
        items.push(calls.length ? { tokens: step.tokens, calls } : { tokens: step.tokens });
        const results = step.results.flatMap((r, i) => (r.answered ? [{ tokens: r.tokens, resultOf: calls[i]! }] : []));
        items.push(...(step.shuffle ? results.reverse() : results));
      }
    }
    return items;
  });

const input = conversation.chain((items) =>
  fc.record({
    items: fc.constant(items),
    from: fc.integer({ min: 0, max: items.length }),
    fixed: fc.integer({ min: 0, max: 500 }),
    threshold: fc.integer({ min: 1, max: 4_000 }),
    keep: fc.integer({ min: 1, max: 2_000 }),
  }),
);

const sum = (items: readonly PlanItem[]) => items.reduce((n, i) => n + i.tokens, 0);

/** Does the tail [cut, end) hold a result whose call was made in [from, cut)? */
function orphans({ items, from }: PlanInput, cut: number): boolean {
  for (let r = cut; r < items.length; r++) {
    const id = items[r]!.resultOf;
    if (id === undefined) continue;
    for (let c = from; c < cut; c++) if (items[c]!.calls?.includes(id)) return true;
  }
  return false;
}

/** The oracle: try every cut from the newest back and take the first that keeps enough and orphans nothing. */
function oracle(p: PlanInput): number | null {
  if (p.fixed + sum(p.items.slice(p.from)) <= p.threshold) return null;
  for (let cut = p.items.length; cut > p.from; cut--) {
    if (sum(p.items.slice(cut)) >= p.keep && !orphans(p, cut)) return cut;
  }
  return null;
}

describe('planCompaction', () => {
  it('agrees with the brute-force oracle', async () => {
    fc.assert(
      fc.property(input, (p) => {
        expect(planCompaction(p)).toBe(oracle(p));
      }),
      { numRuns: 2_000 },
    );
  });

  it('never sends a tool result without its call, keeps at least `keep` tokens, and cuts only past the threshold', async () => {
    let cuts = 0;
    fc.assert(
      fc.property(input, (p) => {
        const cut = planCompaction(p);
        if (cut === null) return;
        cuts++;
        expect(cut).toBeGreaterThan(p.from);
        expect(orphans(p, cut)).toBe(false);
        expect(sum(p.items.slice(cut))).toBeGreaterThanOrEqual(p.keep);
        expect(p.fixed + sum(p.items.slice(p.from))).toBeGreaterThan(p.threshold);
      }),
      { numRuns: 2_000 },
    );
    // The generator reaches cuts often enough for this to say something.
    expect(cuts).toBeGreaterThan(200);
  });

  it('at the threshold nothing is cut; one token over, the latest cut that keeps `keep` tokens', async () => {
    const items: PlanItem[] = [{ tokens: 300 }, { tokens: 200 }, { tokens: 400 }];
    expect(planCompaction({ items, from: 0, fixed: 100, threshold: 1_000, keep: 400 })).toBeNull();
    expect(planCompaction({ items, from: 0, fixed: 101, threshold: 1_000, keep: 400 })).toBe(2);
    expect(planCompaction({ items, from: 0, fixed: 101, threshold: 1_000, keep: 401 })).toBe(1);
    // Nothing left to summarize: every message is needed for the tail.
    expect(planCompaction({ items, from: 0, fixed: 101, threshold: 1_000, keep: 2_000 })).toBeNull();
    expect(planCompaction({ items, from: 2, fixed: 700, threshold: 1_000, keep: 100 })).toBeNull();
  });

  it('moves the cut back to the assistant message whose calls the kept results answer', async () => {
    const items: PlanItem[] = [{ tokens: 500 }, { tokens: 10, calls: ['a', 'b'] }, { tokens: 300, resultOf: 'b' }, { tokens: 300, resultOf: 'a' }];
    expect(planCompaction({ items, from: 0, fixed: 0, threshold: 1_000, keep: 300 })).toBe(1);
  });

  it('keeps min(keepTokens, half the threshold)', async () => {
    expect(keepTokensFor(1_000, 4_000)).toBe(500);
    expect(keepTokensFor(1_001, 4_000)).toBe(500);
    expect(keepTokensFor(24_000, 4_000)).toBe(4_000);
  });
});
