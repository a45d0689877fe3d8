import 'server-only';
import { LIMITS } from '@/lib/limits';
import type { ProviderLimits } from './provider-calls';

/** A provider's caps: its own (Admin → Providers), else the instance defaults (PROVIDER_MAX_CONCURRENT, …). */
export function providerLimits(own: { maxConcurrent?: number | null; requestsPerMinute?: number | null } = {}): ProviderLimits {
  return {
    maxConcurrent: own.maxConcurrent ?? LIMITS.providers.concurrent.default,
    requestsPerMinute: own.requestsPerMinute ?? LIMITS.providers.requestsPerMinute.default,
  };
}
