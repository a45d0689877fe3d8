import 'server-only';
import { env } from '@/server/env';
import { parseAllowedRanges } from './address-rule';
import { pinnedDispatcher, pinnedFetch, systemResolver, type Resolver } from './pinned-dispatcher';

export { EgressRefused, checkedAddress } from './pinned-dispatcher';
export type { Resolver } from './pinned-dispatcher';

/**
 * An undici dispatcher for an account's outbound calls under the deployment's egress rule (EGRESS_ALLOW, with the
 * older MCP_EGRESS_ALLOW still honoured): MCP servers (ADR 054) and web fetch (ADR 060).
 */
export function egressDispatcher(resolve: Resolver = systemResolver) {
  return pinnedDispatcher(parseAllowedRanges(env.egressAllow), resolve);
}

/** A fetch through a fresh egress dispatcher: its connections belong to that caller, and close with it. */
export function egressFetch(resolve: Resolver = systemResolver): { fetch: typeof fetch; close: () => Promise<void> } {
  const dispatcher = egressDispatcher(resolve);
  return { fetch: pinnedFetch(dispatcher), close: () => dispatcher.close() };
}
