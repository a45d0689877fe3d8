import { Badge, EmptyState } from '@/components/ui/misc';
import type { BuiltinProviderView, ProviderView } from '@/lib/schemas/providers';
import { ProviderItem } from './provider-item';
import { RefusedParameters } from './refused-parameters';

/** The managed providers, then the ones the environment configures (read-only here). */
export function ProviderList({ providers, builtin }: { providers: ProviderView[]; builtin: BuiltinProviderView[] }) {
  return (
    <div className="space-y-4">
      {providers.length === 0 ? (
        <EmptyState title="No providers added yet">Add one above; agents then use its models as its-slug:model.</EmptyState>
      ) : (
        <ul aria-label="Providers" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {providers.map((provider) => (
            <ProviderItem key={provider.id} provider={provider} />
          ))}
        </ul>
      )}
      <div className="space-y-2">
        <h3 className="font-medium text-zinc-900 dark:text-zinc-100">From the environment</h3>
        <ul aria-label="Providers from the environment" className="space-y-1 text-sm text-zinc-700 dark:text-zinc-300">
          {builtin.map((b) => (
            <li key={b.slug} className="flex flex-wrap items-center gap-2">
              <span>{b.name}</span>
              <code className="text-xs">{b.slug}:…</code>
              <Badge tone={b.configured ? 'success' : 'neutral'}>{b.configured ? 'Configured' : 'Not set'}</Badge>
              <span className="text-xs text-zinc-500 dark:text-zinc-400">{b.variables}</span>
              <RefusedParameters parameters={b.refusedParameters} />
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
