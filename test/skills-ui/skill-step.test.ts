import { describe, expect, it } from 'vitest';
import { stepItem, type StepItem } from '@/components/runs/step-items';
import type { ApiRunEvent } from '@/lib/types/run-events';

const hash = 'a'.repeat(12) + 'b'.repeat(52);

describe('a read_skill step', () => {
  it('names the skill, the file and the version (the hash prefix), then the receipt and the time', () => {
    const item = stepItem({
      type: 'step.tool',
      toolCallId: 'c1',
      tool: 'read_skill',
      result: '# Triage',
      durationMs: 4,
      status: 'success',
      origin: 'skill:triage',
      skill: { id: 's1', name: 'triage', hash, path: 'SKILL.md' },
      receipt: 'r1',
      runId: 'r',
      seq: 1,
      at: '2026-12-07T00:00:00.000Z',
    } as ApiRunEvent) as Extract<StepItem, { kind: 'tool' }>;
    expect(item.title).toBe('Tool read_skill (skill:triage) returned');
    expect(item.detail).toBe('Skill triage, SKILL.md, version aaaaaaaaaaaa · Receipt r1 · 4 ms');
  });

  it('a step without a skill reads as before', () => {
    const item = stepItem({ type: 'step.tool', toolCallId: 'c2', tool: 'calculator', result: '3', durationMs: 12, status: 'success', runId: 'r', seq: 2, at: '2026-12-07T00:00:00.000Z' } as ApiRunEvent) as Extract<StepItem, { kind: 'tool' }>;
    expect(item.detail).toBe('12 ms');
  });
});

describe('"Setup changed" for an edited skill', () => {
  it('names the skills field and each skill with its version, so an edit reads as a change', async () => {
    const { setupChangeTexts } = await import('@/components/runs/setup-changes');
    const before = [{ id: 's1', name: 'triage', hash: 'a'.repeat(64) }];
    const after = [{ id: 's1', name: 'triage', hash: 'b'.repeat(64) }];
    expect(setupChangeTexts([{ field: 'skills', before, after }])).toEqual([
      { field: 'skills', label: 'Skills', before: 'triage (version aaaaaaaaaaaa)', after: 'triage (version bbbbbbbbbbbb)' },
    ]);
  });
});
