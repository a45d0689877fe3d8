import type { ApiStateEntry } from '@/lib/types/team';

export type StateKind = ApiStateEntry['kind'];
export type StateView = { revision: number; entries: ApiStateEntry[] };

/** Display order and labels of the kinds (the same five the tools accept). */
export const KIND_ORDER: readonly StateKind[] = ['objective', 'plan', 'requirement', 'question', 'finding'];

export const KIND_LABEL: Record<StateKind, { one: string; many: string; tone: 'neutral' | 'info' | 'success' | 'warning' }> = {
  objective: { one: 'Objective', many: 'Objectives', tone: 'info' },
  plan: { one: 'Plan', many: 'Plans', tone: 'neutral' },
  requirement: { one: 'Requirement', many: 'Requirements', tone: 'neutral' },
  question: { one: 'Question', many: 'Open questions', tone: 'warning' },
  finding: { one: 'Finding', many: 'Findings', tone: 'success' },
};

export type StateGroups = {
  /** Active entries by kind, in KIND_ORDER, only kinds that have entries; publication order within a kind. */
  active: Array<{ kind: StateKind; entries: ApiStateEntry[] }>;
  /** Archived entries, most recently changed first. */
  archived: ApiStateEntry[];
};

/** Split the state into the panel's sections. Pure, so the grouping is tested without a browser. */
export function groupState(entries: readonly ApiStateEntry[]): StateGroups {
  const active = KIND_ORDER.map((kind) => ({ kind, entries: entries.filter((e) => e.status === 'active' && e.kind === kind) })).filter(
    (g) => g.entries.length > 0,
  );
  const archived = entries.filter((e) => e.status === 'archived').sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { active, archived };
}
