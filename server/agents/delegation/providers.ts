import 'server-only';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage } from '@langchain/core/messages';
import type { ProviderCapability } from '@/lib/types/delegation';
import { answerDanglingToolCalls } from '../graph';

/**
 * A way to start a child, registered by name with the start-time capabilities it honours. The `task` tool checks a
 * request against them before anything starts: a request that needs a capability its provider lacks is refused
 * (`unsupported_capability`), never accepted and then ignored.
 */
export type DelegationProvider = {
  readonly name: string;
  readonly capabilities: ReadonlySet<ProviderCapability>;
  /**
   * The messages the child's thread holds before its task message, from the parent's thread as checkpointed when
   * it called `task` (`parentMessages`) and that call's id.
   */
  initialMessages(parentMessages: readonly BaseMessage[], toolCallId: string): BaseMessage[];
};

const ALL: ReadonlySet<ProviderCapability> = new Set(['outputSchema', 'depthLimit', 'toolFilter', 'persona']);

/** A fresh child context holding only the task. */
export const spawnProvider: DelegationProvider = { name: 'spawn', capabilities: ALL, initialMessages: () => [] };

/**
 * The child starts from the parent's completed turns: everything before the assistant message that made this call
 * (so neither that message nor its sibling calls), with any earlier call left without a result answered by a
 * placeholder — the child never inherits a dangling tool call.
 */
export const forkProvider: DelegationProvider = {
  name: 'fork',
  capabilities: ALL,
  initialMessages(parentMessages, toolCallId) {
    const at = parentMessages.findIndex((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.id === toolCallId));
    return answerDanglingToolCalls(at === -1 ? parentMessages : parentMessages.slice(0, at));
  },
};

export const DEFAULT_PROVIDER = 'spawn';

// One registry per process (route bundles may load their own copy of this module).
const g = globalThis as unknown as { __ensembleDelegationProviders?: Map<string, DelegationProvider> };
const providers = (g.__ensembleDelegationProviders ??= new Map([
  [spawnProvider.name, spawnProvider],
  [forkProvider.name, forkProvider],
]));

/** Register (or replace) a provider by its name. */
export function registerDelegationProvider(provider: DelegationProvider): void {
  providers.set(provider.name, provider);
}

/** Remove a provider (tests; the built-ins can be registered again with the exported objects). */
export function unregisterDelegationProvider(name: string): void {
  providers.delete(name);
}

export const delegationProvider = (name: string): DelegationProvider | undefined => providers.get(name);
export const delegationProviderNames = (): string[] => [...providers.keys()];
