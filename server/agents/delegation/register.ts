import 'server-only';
import { registerResponseGuard } from '../guards';
import { registerSharedTokenBudget } from '../guards/tokens';
import { registerRunSetup } from '../run-setup';
import { registerToolGroup } from '../tools/registry';
import { delegationCapGuard } from './cap-guard';
import { delegatedRunSetup } from './child-run';
import { delegateTools } from './task-tool';
import { treeBudget } from './tree-budget';

/**
 * Plug delegation into the run core through its seams, as the team domain plugs in its tools
 * (server/teams/tools/register.ts): the `delegate` tool group (`task`), the delegation-cap response guard, the tree's
 * shared token budget for the token guard, and the child-run hook the executor asks how to run a delegated child.
 * The run core (graph, guards, tools, executor) never imports delegation (docs/decisions/049-run-core-seams.md).
 * Idempotent: registering again replaces each piece by its name. Start-up calls it before any run is recovered or
 * started; a scheduler started with the delegation port calls it too (port.ts prepare, as teamJobs.prepare registers
 * the team tools), so a script or test that runs delegation through the scheduler needs nothing more.
 */
export function registerDelegation(): void {
  registerToolGroup('delegate', delegateTools);
  registerResponseGuard(delegationCapGuard);
  registerSharedTokenBudget(treeBudget);
  registerRunSetup('delegation', delegatedRunSetup);
}
