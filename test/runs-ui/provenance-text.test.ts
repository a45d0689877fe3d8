import { describe, expect, it } from 'vitest';
import { provenanceLabel, showsProvenance } from '@/components/runs/provenance-text';
import type { ContentKind, Provenance } from '@/lib/types/provenance';

const framework = (contentKind: ContentKind, about?: string): Provenance => ({ contentKind, producer: { type: 'framework' }, ...(about ? { about } : {}) });
const person = (contentKind: ContentKind): Provenance => ({ contentKind, producer: { type: 'person' } });
const member = (contentKind: ContentKind, name: string, about?: string): Provenance => ({
  contentKind,
  producer: { type: 'member', memberId: 'm1', name },
  ...(about ? { about } : {}),
});

describe('provenanceLabel', () => {
  it('the person’s own words say "You"', () => {
    expect(provenanceLabel(person('person_message'))).toBe('You');
    expect(provenanceLabel(person('team_request'))).toBe('You · team request');
    expect(provenanceLabel(person('clarification_answer'))).toBe('You · answer to a question');
    expect(provenanceLabel(person('mention'))).toBe('You · mention');
  });

  it('what the framework added says "framework" and whom it came from', () => {
    expect(provenanceLabel(framework('receipt', 'Review'))).toBe('framework · receipt from Review');
    expect(provenanceLabel(framework('receipt'))).toBe('framework · receipt');
    expect(provenanceLabel(member('team_request', 'Planner'))).toBe('framework · request from Planner');
    expect(provenanceLabel(member('team_request', '   '))).toBe('framework · team request');
    expect(provenanceLabel(framework('compaction'))).toBe('framework · earlier turns summarized');
    expect(provenanceLabel(framework('note'))).toBe('framework · note');
    expect(provenanceLabel(framework('shared_context', 'Research'))).toBe('framework · shared context from Research');
    expect(provenanceLabel(framework('shared_context'))).toBe('framework · shared context');
    expect(provenanceLabel(framework('delegated_task', 'Lead'))).toBe('framework · task delegated by Lead');
    expect(provenanceLabel(framework('delegated_task'))).toBe('framework · delegated task');
    expect(provenanceLabel(framework('tool_result'))).toBe('framework · tool result');
  });

  it('`about` wins over the producing member’s name', () => {
    expect(provenanceLabel(member('receipt', 'Planner', 'Review'))).toBe('framework · receipt from Review');
  });

  it('no kind produces a label that could pass for the person’s own', () => {
    const kinds: ContentKind[] = ['team_request', 'receipt', 'shared_context', 'clarification_answer', 'mention', 'note', 'compaction', 'delegated_task', 'assistant', 'tool_result', 'person_message'];
    for (const kind of kinds) {
      expect(provenanceLabel(framework(kind, 'X')).startsWith('You')).toBe(false);
      expect(provenanceLabel(member(kind, 'You')).startsWith('You')).toBe(false);
      expect(provenanceLabel({ contentKind: kind, producer: { type: 'agent' } }).startsWith('agent · ')).toBe(true);
    }
  });

  it('the agent’s own replies and tool results carry no label; everything else does', () => {
    expect(showsProvenance({ contentKind: 'assistant', producer: { type: 'agent' } })).toBe(false);
    expect(showsProvenance({ contentKind: 'tool_result', producer: { type: 'agent' } })).toBe(false);
    expect(showsProvenance(undefined)).toBe(false);
    expect(showsProvenance(person('person_message'))).toBe(true);
    expect(showsProvenance(framework('tool_result'))).toBe(true);
  });
});
