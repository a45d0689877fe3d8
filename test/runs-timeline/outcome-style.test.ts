import { describe, expect, it } from 'vitest';
import { OUTCOME_LABEL, barState } from '@/components/runs-timeline/layout';
import { OUTCOME_STYLE } from '@/components/runs-timeline/outcome-style';

describe('bars by outcome', () => {
  const states = Object.keys(OUTCOME_LABEL) as Array<keyof typeof OUTCOME_LABEL>;

  it('each outcome has its own colour and its own glyph, in light and dark (never colour alone)', () => {
    expect(Object.keys(OUTCOME_STYLE).sort()).toEqual([...states].sort());
    const glyphs = states.map((s) => OUTCOME_STYLE[s].glyph);
    expect(new Set(glyphs).size).toBe(states.length);
    const light = states.map((s) => OUTCOME_STYLE[s].className.split(' ').find((c) => c.startsWith('bg-')));
    const dark = states.map((s) => OUTCOME_STYLE[s].className.split(' ').find((c) => c.startsWith('dark:bg-')));
    expect(light.every(Boolean) && dark.every(Boolean)).toBe(true);
    expect(new Set(light).size).toBe(states.length);
    expect(new Set(dark).size).toBe(states.length);
  });

  it('a bar’s state is its run’s outcome, or queued/running while it has none', () => {
    expect(barState({ outcome: 'completed', status: 'success' })).toBe('completed');
    expect(barState({ outcome: 'failed', status: 'error' })).toBe('failed');
    expect(barState({ outcome: 'cancelled', status: 'cancelled' })).toBe('cancelled');
    expect(barState({ outcome: 'interrupted', status: 'interrupted' })).toBe('interrupted');
    expect(barState({ outcome: null, status: 'running' })).toBe('running');
    expect(barState({ outcome: null, status: 'pending' })).toBe('pending');
  });
});
