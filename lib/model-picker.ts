import { parseModel } from './models';

/**
 * The agent form's Model picker, as pure functions: which listed models a typed text shows (grouped by provider),
 * the model string a pick fills in, and the warning for a well-formed model its provider doesn't list.
 */

/** One provider as GET /api/v1/models answers it: never a URL or key, only what choosing a model needs. */
export type ModelCatalogProvider = {
  /** The model strings' prefix: a managed provider's slug, `openai`/`anthropic`/`ollama`, or `scripted`. */
  id: string;
  name: string;
  kind: 'openai' | 'anthropic' | 'ollama' | 'scripted';
  /** The cached model list (empty until an admin tests the connection; the environment's may stay empty). */
  models: string[];
  configured: boolean;
};
export type ModelCatalog = { providers: ModelCatalogProvider[] };

export type ModelOption = { providerId: string; model: string; value: string };
export type ModelGroup = { provider: ModelCatalogProvider; options: ModelOption[] };

/** At most this many options are shown at once (a provider may list 1,000): typing narrows the rest. */
export const MAX_SHOWN_MODELS = 100;

/** The model string a pick fills in: `scripted`, or `<provider id>:<model>`. */
export const modelValue = (providerId: string, model: string) => (providerId === 'scripted' ? 'scripted' : `${providerId}:${model}`);

/** Case- and width-insensitive (NFKC, so full-width letters match), and trimmed. */
const fold = (text: string) => text.normalize('NFKC').toLowerCase().trim();

export type FilteredModels = {
  groups: ModelGroup[];
  /** The shown options in order, for the active index (keyboard) and aria-activedescendant. */
  options: ModelOption[];
  /** How many matched in all (more than shown when the cap cut the list). */
  matched: number;
};

/**
 * The listed models matching `query`, grouped by provider in the catalog's order. A model matches when the query
 * is part of its model string (`lab:gpt-4o`), or of its provider's name; an empty query shows them all. Only
 * configured providers are offered. At most `limit` options are kept; `matched` tells how many there were.
 */
export function filterModels(providers: readonly ModelCatalogProvider[], query: string, limit = MAX_SHOWN_MODELS): FilteredModels {
  const q = fold(query);
  const groups: ModelGroup[] = [];
  const options: ModelOption[] = [];
  let matched = 0;
  for (const provider of providers) {
    if (!provider.configured) continue;
    const nameMatches = q !== '' && fold(provider.name).includes(q);
    const kept: ModelOption[] = [];
    for (const model of provider.models) {
      const value = modelValue(provider.id, model);
      if (q !== '' && !nameMatches && !fold(value).includes(q)) continue;
      matched++;
      if (options.length + kept.length < limit) kept.push({ providerId: provider.id, model, value });
    }
    if (kept.length) {
      groups.push({ provider, options: kept });
      options.push(...kept);
    }
  }
  return { groups, options, matched };
}

/** Whether any provider other than the embedded model lists a model (else the picker says how to get some). */
export const hasListedModels = (providers: readonly ModelCatalogProvider[]) => providers.some((p) => p.id !== 'scripted' && p.configured && p.models.length > 0);

/**
 * A warning for a model string that parses but isn't in its provider's cached list: "Not listed by <name> — check
 * the name", or for a prefix no provider has. None for a string that doesn't parse (the form's validation says why),
 * before the catalog has loaded, or for a provider with no list to compare against. Saving stays allowed: a list
 * can be stale, and a provider can be added after the agent.
 */
export function unlistedModelWarning(value: string, providers: readonly ModelCatalogProvider[]): string | null {
  const spec = parseModel(value.trim());
  if (!spec || spec.provider === 'scripted' || providers.length === 0) return null;
  const providerId = spec.provider === 'managed' ? spec.slug : spec.provider;
  const provider = providers.find((p) => p.id === providerId);
  if (!provider) return `No provider named "${providerId}" — an admin adds providers on the Admin page`;
  if (provider.models.length === 0 || provider.models.includes(spec.model)) return null;
  return `Not listed by ${provider.name} — check the name`;
}
