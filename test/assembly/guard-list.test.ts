import { describe, expect, it } from 'vitest';
import { registerDelegation } from '@/server/agents/delegation/register';
import { graphGuards } from '@/server/agents/graph';
import { responseGuards } from '@/server/agents/guards';

describe('the guard list recorded in every assembly', () => {
  it('names each response guard the graph applies, registered ones included, in the order it applies them, once', async () => {
    // As start-up does: delegation's guard joins the built-in ones (ADR 049).
    registerDelegation();
    const names = responseGuards().map((g) => g.name);
    expect(names).toContain('delegation-cap');
    const recorded = graphGuards();
    const positions = names.map((n) => recorded.indexOf(n));
    expect(positions.every((p) => p >= 0), `missing from graphGuards(): ${names.filter((_, i) => positions[i]! < 0).join(', ')}`).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(recorded).size).toBe(recorded.length);
  });
});
