import 'server-only';
import { env } from '@/server/env';
import { parseAllowedRanges } from './address-rule';
import { pinnedDispatcher, pinnedFetch, systemResolver, type Resolver } from './pinned-dispatcher';

export { EgressRefused, checkedAddress } from './pinned-dispatcher';
export type { Resolver } from './pinned-dispatcher';

/**
 * A fetch for an account's outbound calls under the deployment's egress rule (MCP_EGRESS_ALLOW). A fresh dispatcher
 * per caller: its connections belong to that caller, and close with it.
 */
export function egressFetch(resolve: Resolver = systemResolver): { fetch: typeof fetch; close: () => Promise<void> } {
  const dispatcher = pinnedDispatcher(parseAllowedRanges(env.mcpEgressAllow), resolve);
  return { fetch: pinnedFetch(dispatcher), close: () => dispatcher.close() };
}
