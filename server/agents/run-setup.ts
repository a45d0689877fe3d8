import 'server-only';
import type { Agent } from '@/server/db/schema';
import type { BuildOptions, GraphAgent, RunContext } from './run-types';

/** How one run differs from its agent's ordinary run (a delegated child's persona, capture tool and time limit). */
export type RunSetup = {
  /** The agent as this run runs it (e.g. without the owner's instructions). */
  agent: GraphAgent & Agent;
  graphOptions: Pick<BuildOptions, 'modelAgent' | 'extraTools' | 'finishTools'>;
  /** A wall-clock limit below the agent's own (the executor and the assembly record take the smaller). */
  timeLimitMinutes?: number;
};

/** Decides, from the run's server-written context, whether it is this hook's kind of run; null when it is not. */
export type RunSetupHook = (agent: Agent, context: RunContext) => RunSetup | null;

// A domain whose runs the executor starts differently plugs in here at start-up (delegation's children:
// server/agents/delegation/register.ts), so the executor never imports it. One registry per process, on globalThis
// (route bundles and instrumentation may load separate copies of this module).
const g = globalThis as unknown as { __ensembleRunSetups?: Map<string, RunSetupHook> };
const hooks = (g.__ensembleRunSetups ??= new Map());

/** Register (or replace, by name) a run-setup hook. */
export function registerRunSetup(name: string, hook: RunSetupHook): void {
  hooks.set(name, hook);
}

/** The setup of the first hook that claims the run (in registration order); null for an ordinary run. */
export function runSetupFor(agent: Agent, context: RunContext): RunSetup | null {
  for (const hook of hooks.values()) {
    const setup = hook(agent, context);
    if (setup) return setup;
  }
  return null;
}
