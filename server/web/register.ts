import 'server-only';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { webTools } from './tools';

/** Register the `web` tool group with the run core (docs/decisions/060-web-fetch.md). Idempotent. */
export function registerWebTools(): void {
  registerToolGroup('web', webTools);
}
