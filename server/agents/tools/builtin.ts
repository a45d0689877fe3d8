import 'server-only';
import { clarifyTools } from './clarify';
import { registerToolGroup, registeredToolGroups } from './registry';
import { utilityTools } from './utility';

/**
 * Register the groups that ship with the runtime itself. The domains built on it register theirs at start-up through
 * the same registry: `team` (server/teams/tools/register.ts) and `delegate` (server/agents/delegation/register.ts).
 */
export function ensureBuiltinToolGroups(): void {
  const have = registeredToolGroups();
  if (!have.includes('utility')) registerToolGroup('utility', utilityTools);
  if (!have.includes('clarify')) registerToolGroup('clarify', clarifyTools);
}
