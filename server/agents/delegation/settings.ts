import 'server-only';
import { LIMITS } from '@/lib/limits';
import { jsonText } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import type { Agent } from '@/server/db/schema';
import { findAgent } from '../catalog';
import type { RunContext } from '../run-types';
import type { DelegationSettings, DelegationSpec } from './spec';

const L = LIMITS.delegation;
const clamp = (n: number | null | undefined, { min, max }: { min: number; max: number }, fallback: number) =>
  Number.isInteger(n) && n! >= min && n! <= max ? n! : fallback;

/** What the child's run context carries about its delegation (server-written into runs.input.context). */
export type ChildContext = {
  delegationId: string;
  /** The child's depth (the parent's + 1). */
  depth: number;
  delegation: {
    /** The deepest the tree below the root may go: min of every ancestor's maxDepth. */
    maxDepth: number;
    persona?: string;
    /** Only these tools (by name); absent: all of the agent's. */
    tools?: string[];
    outputSchema?: Record<string, unknown>;
    timeLimitMinutes?: number;
  };
};

export function childContextOf(context: RunContext): ChildContext | null {
  const delegation = context.delegation as ChildContext['delegation'] | undefined;
  return typeof context.delegationId === 'string' && delegation && typeof delegation === 'object'
    ? { delegationId: context.delegationId, depth: typeof context.depth === 'number' ? context.depth : 1, delegation }
    : null;
}

/** The run's delegation depth (0 for a run a person or a team job started). */
export const depthOf = (context: RunContext): number => childContextOf(context)?.depth ?? 0;

/** An agent's settings, within LIMITS, with the depth bound it inherits. */
export function settingsOfAgent(agent: Pick<Agent, 'allowedSubagents' | 'maxDepth' | 'maxChildren' | 'maxConcurrentChildren'>, inheritedMaxDepth?: number): DelegationSettings {
  const own = clamp(agent.maxDepth, L.depth, L.depth.default);
  const allowed = agent.allowedSubagents;
  return {
    allowedSubagents: allowed === 'all' || allowed === 'none' || Array.isArray(allowed) ? allowed : 'none',
    maxDepth: inheritedMaxDepth !== undefined ? Math.min(own, inheritedMaxDepth) : own,
    maxChildren: clamp(agent.maxChildren, L.childrenPerRun, L.childrenPerRun.default),
    concurrency: Math.min(clamp(agent.maxConcurrentChildren, L.concurrent, L.concurrent.default), L.concurrent.server),
  };
}

// Per run, in this process: the settings read when the run first needed them, so editing the agent mid-run changes
// nothing for that run. Across a restart, the run's first accepted child carries them (spec.settings).
const g = globalThis as unknown as { __ensembleDelegationSettings?: Map<string, DelegationSettings> };
const cache = (g.__ensembleDelegationSettings ??= new Map());
const CACHE_MAX = 2_000;

const pinnedSettings = statement(
  `select ${jsonText('spec', 'settings')} as settings from delegations where parent_run_id = ? and ${jsonText('spec', 'settings')} is not null order by seq limit 1`,
);

/**
 * The run's delegation settings, snapshotted: from this process's cache, else its ledger's first child, else its
 * agent now (which is when the run's graph is first built, i.e. when it starts).
 */
export async function delegationSettingsFor(context: RunContext): Promise<DelegationSettings> {
  const cached = cache.get(context.runId);
  if (cached) return cached;
  const first = await pinnedSettings.get<{ settings: string }>(context.runId);
  const pinned = first ? (JSON.parse(first.settings) as DelegationSpec['settings']) : undefined;
  const agent = context.agentId ? await findAgent(context.ownerId, context.agentId) : undefined;
  const settings = pinned ?? (agent ? settingsOfAgent(agent, childContextOf(context)?.delegation.maxDepth) : NO_DELEGATION);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(context.runId, settings);
  return settings;
}

/** A run without an agent delegates nothing. */
const NO_DELEGATION: DelegationSettings = { allowedSubagents: 'none', maxDepth: 0, maxChildren: 0, concurrency: 1 };
