import 'server-only';
import { providerKey, type ProviderDescriptor } from './provider';

/**
 * Optional request parameters a server may refuse, and that a request can go without and still ask the same thing
 * (only usage reporting, tool-call parallelism, caching or tuning hints are lost). Anything else a server refuses
 * fails the call with its message.
 */
export const DROPPABLE_PARAMETERS = [
  'stream_options',
  'parallel_tool_calls',
  'prompt_cache_key',
  'prompt_cache_retention',
  'service_tier',
  'verbosity',
  'reasoning_effort',
  'logprobs',
  'top_logprobs',
] as const;

/** Providers remembered per process (each is a configured endpoint, so few; bounded all the same). */
const MAX_PROVIDERS = 256;

// Route bundles and instrumentation may load separate copies of this module: one table per process.
const g = globalThis as unknown as { __ensembleUnsupportedParameters?: Map<string, ReadonlySet<string>> };
const table = () => (g.__ensembleUnsupportedParameters ??= new Map());

/** The parameters this provider refused, which requests to it now leave out (for a provider's status). */
export function unsupportedParameters(provider: Pick<ProviderDescriptor, 'kind' | 'baseUrl'>): string[] {
  return [...(table().get(providerKey(provider)) ?? [])];
}

/** The provider refused these parameters: requests to it leave them out from now on (in this process). */
export function rememberUnsupported(provider: Pick<ProviderDescriptor, 'kind' | 'baseUrl'>, parameters: readonly string[]): void {
  const key = providerKey(provider);
  const known = table();
  const merged = new Set([...(known.get(key) ?? []), ...parameters]);
  known.delete(key);
  known.set(key, merged);
  if (known.size > MAX_PROVIDERS) known.delete(known.keys().next().value!);
}

/** Tests only: forget what every provider refused. */
export function forgetUnsupportedParameters(): void {
  table().clear();
}
