import type { ActionResult } from '@/lib/action-result';
import type { ProviderTestResult, ProviderView } from '@/lib/schemas/providers';

/** The Providers section's server actions, handed to its client components as props (components never import app/). */
export type ProviderActions = {
  createProvider: (input: unknown) => Promise<ActionResult<ProviderView>>;
  updateProvider: (id: string, input: unknown) => Promise<ActionResult<ProviderView>>;
  deleteProvider: (id: string) => Promise<ActionResult<null>>;
  testProvider: (id: string) => Promise<ActionResult<ProviderTestResult & { provider: ProviderView }>>;
};

export const selectClass =
  'h-10 w-full min-w-0 rounded-md border border-zinc-300 bg-white px-3 text-sm text-zinc-900 focus:outline-2 focus:outline-indigo-500 ' +
  'dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';
