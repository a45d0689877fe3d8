import { describe, expect, it } from 'vitest';
import type { Receipt } from '@/lib/types/receipts';
import { LIMITS } from '@/lib/limits';
import { checkCitations } from '@/server/agents/receipts/citations';

const ledger: Receipt[] = [
  { id: 'r1', tool: 'calculator', status: 'ok' },
  { id: 'r2', tool: 'current_time', status: 'error' },
];

describe('checkCitations: resolved = a receipt with that id AND that tool exists', () => {
  it('resolves a citation whose id and tool match, and an error receipt too (the call happened, even if it failed)', () => {
    expect(checkCitations('Total 42 [r1 calculator], time [r2 current_time].', ledger)).toEqual([
      { id: 'r1', tool: 'calculator', resolved: true },
      { id: 'r2', tool: 'current_time', resolved: true },
    ]);
  });

  it('leaves unresolved: a wrong id, a wrong tool for a real id, and an id from another run’s ledger', () => {
    const otherRun: Receipt[] = [{ id: 'r9', tool: 'calculator', status: 'ok' }];
    const text = 'A [r3 calculator] B [r1 current_time] C [r9 calculator]';
    expect(checkCitations(text, ledger)).toEqual([
      { id: 'r3', tool: 'calculator', resolved: false },
      { id: 'r1', tool: 'current_time', resolved: false },
      { id: 'r9', tool: 'calculator', resolved: false },
    ]);
    // The same r9 resolves only against the run that made it.
    expect(checkCitations(text, otherRun).find((c) => c.id === 'r9')).toEqual({ id: 'r9', tool: 'calculator', resolved: true });
  });

  it('lists each distinct citation once, in order of first appearance; no citations → empty', () => {
    expect(checkCitations('[r1 calculator] and again [r1 calculator] then [r2 current_time]', ledger).map((c) => c.id)).toEqual(['r1', 'r2']);
    expect(checkCitations('No receipts here, [r1] [calculator] [R1 calculator] [r0 calculator] r1 calculator', ledger)).toEqual([]);
    expect(checkCitations('', [])).toEqual([]);
  });

  it('a flood of citations is checked up to the limit, never more (no unbounded answer)', () => {
    const max = LIMITS.receipts.citationsPerText;
    const text = Array.from({ length: max + 50 }, (_, i) => `[r${i + 1} calculator]`).join(' ');
    const checks = checkCitations(text, ledger);
    expect(checks).toHaveLength(max);
    expect(checks[0]).toEqual({ id: 'r1', tool: 'calculator', resolved: true });
    expect(checks.filter((c) => c.resolved)).toHaveLength(1);
  });

  it('citations next to CJK and emoji text are read the same', () => {
    expect(checkCitations('合計は42です[r1 calculator]🎉', ledger)).toEqual([{ id: 'r1', tool: 'calculator', resolved: true }]);
  });
});
