import { describe, expect, it } from 'vitest';
import { GRAPH_GUARDS } from '@/server/agents/graph';
import { RESPONSE_GUARDS } from '@/server/agents/guards';

describe('the guard list recorded in every assembly', () => {
  it('names each response guard the graph applies, in the order it applies them, once', async () => {
    const names = RESPONSE_GUARDS.map((g) => g.name);
    expect(names.length).toBeGreaterThan(0);
    const positions = names.map((n) => GRAPH_GUARDS.indexOf(n as (typeof GRAPH_GUARDS)[number]));
    expect(positions.every((p) => p >= 0), `missing from GRAPH_GUARDS: ${names.filter((_, i) => positions[i]! < 0).join(', ')}`).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(GRAPH_GUARDS).size).toBe(GRAPH_GUARDS.length);
  });
});
