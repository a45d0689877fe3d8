import 'server-only';
import { delegateTools } from '../delegation/task-tool';
import { clarifyTools } from './clarify';
import { registerToolGroup, registeredToolGroups } from './registry';
import { utilityTools } from './utility';

/** Register the groups that ship with the runtime (the team layer registers `team` itself). */
export function ensureBuiltinToolGroups(): void {
  const have = registeredToolGroups();
  if (!have.includes('utility')) registerToolGroup('utility', utilityTools);
  if (!have.includes('clarify')) registerToolGroup('clarify', clarifyTools);
  if (!have.includes('delegate')) registerToolGroup('delegate', delegateTools);
}
