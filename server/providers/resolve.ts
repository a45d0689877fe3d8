import 'server-only';
import type { ProviderKind } from '@/lib/schemas/providers';
import { open, SecretBoxError } from './secret-box';
import { providerRowBySlug, type ProviderRow } from './store';

/**
 * A managed provider as the model-call path needs it (ADR 043): read from the database at every run start, so a
 * change made in any process is used by the next run everywhere, with no cache to invalidate (one indexed read per
 * run is nothing next to a model call).
 */
export type ProviderDescriptor = {
  slug: string;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  apiKey: string | undefined;
  /** Its own caps on calls in flight and per minute (null: the instance defaults; server/providers/capacity). */
  limits: { maxConcurrent: number | null; requestsPerMinute: number | null };
};

/** A model string names a provider that can't be used: the run that needs it fails with this message. */
export class ProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigurationError';
  }
}

export function descriptorOf(row: ProviderRow): ProviderDescriptor {
  let apiKey: string | undefined;
  if (row.apiKeyCipher) {
    try {
      apiKey = open(row.apiKeyCipher, row.id);
    } catch (err) {
      if (err instanceof SecretBoxError) throw new ProviderUnavailableError(`Provider "${row.name}" (${row.slug}) can't be used: ${err.message}`);
      throw err;
    }
  }
  return { slug: row.slug, name: row.name, kind: row.kind, baseUrl: row.baseUrl, apiKey, limits: { maxConcurrent: row.maxConcurrent, requestsPerMinute: row.requestsPerMinute } };
}

export async function resolveProvider(slug: string, model: string): Promise<ProviderDescriptor> {
  const row = await providerRowBySlug(slug);
  if (!row) {
    throw new ProviderUnavailableError(
      `Model ${model} is not configured: there is no provider "${slug}" (it was removed, or never added). An admin can add it on the Admin page, or edit the agent to use another model.`,
    );
  }
  return descriptorOf(row);
}
