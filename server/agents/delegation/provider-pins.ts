import 'server-only';
import type { DelegationProvider } from './providers';

/**
 * The provider each accepted child was accepted with, until its thread is seeded: removing a provider blocks new
 * starts (the task tool finds no provider by that name) but never fails a child already accepted. Per process:
 * after a restart a removed provider's unseeded children can only fail (its code is gone); the built-ins are
 * always registered.
 */
const g = globalThis as unknown as { __ensembleDelegationPins?: Map<string, DelegationProvider> };
const pinned = (g.__ensembleDelegationPins ??= new Map());

export function pinProvider(delegationId: string, provider: DelegationProvider): void {
  pinned.set(delegationId, provider);
}

export const pinnedProvider = (delegationId: string): DelegationProvider | undefined => pinned.get(delegationId);

export function unpinProvider(delegationId: string): void {
  pinned.delete(delegationId);
}
