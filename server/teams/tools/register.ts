import 'server-only';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { handoffTools } from './handoff';
import { historyTools } from './history';
import { stateTools } from './state';

/**
 * Register the `team` tool group with the runtime (idempotent: re-registering replaces it). Every tool takes
 * its team and calling member from the run's server-owned context (see caller.ts).
 */
export function registerTeamTools(): void {
  registerToolGroup('team', (context) => [...handoffTools(context), ...stateTools(context), ...historyTools(context)]);
}
