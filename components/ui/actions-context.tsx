'use client';

import { createContext, use, type ReactNode } from 'react';

/**
 * One typed React context per feature that carries its server actions: the feature's layout (a server component)
 * imports its app/(app)/<feature>/actions.ts and provides them, and the feature's client components read them,
 * so components never import app/ (docs/architecture.md). ADR 018 says why a context rather than props.
 */
export function createActionsContext<T>(feature: string) {
  const Context = createContext<T | null>(null);
  function Provider({ actions, children }: { actions: T; children: ReactNode }) {
    return <Context value={actions}>{children}</Context>;
  }
  function useActions(): T {
    const actions = use(Context);
    if (!actions) throw new Error(`${feature} actions are missing: render this inside the ${feature} actions provider of its layout.`);
    return actions;
  }
  return { Provider, useActions };
}
