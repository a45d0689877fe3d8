import 'server-only';
import { asc } from 'drizzle-orm';
import type { ModelCatalog, ModelCatalogProvider } from '@/lib/model-picker';
import { getDb, schema } from '@/server/db';
import { builtinProviders } from './builtins';

/**
 * What every signed-in person may know about the providers, for choosing an agent's model (GET /api/v1/models):
 * names and cached model lists. Only these columns are read, so a base URL, a key or its last four can't leak
 * into the answer. Order: the embedded model, the providers an admin added (by name), then the environment's.
 */
export async function modelCatalog(): Promise<ModelCatalog> {
  const rows = await getDb()
    .select({ slug: schema.providers.slug, name: schema.providers.name, kind: schema.providers.kind, models: schema.providers.models })
    .from(schema.providers)
    .orderBy(asc(schema.providers.name), asc(schema.providers.slug));
  const scripted: ModelCatalogProvider = { id: 'scripted', name: 'Built in (scripted)', kind: 'scripted', models: ['scripted'], configured: true };
  const managed: ModelCatalogProvider[] = rows.map((r) => ({ id: r.slug, name: r.name, kind: r.kind, models: r.models ?? [], configured: true }));
  // The environment's providers have no cached list (their model lists are not fetched): typed names are accepted.
  const builtin: ModelCatalogProvider[] = builtinProviders().map((b) => ({ id: b.slug, name: b.name, kind: b.kind, models: [], configured: b.configured }));
  return { providers: [scripted, ...managed, ...builtin] };
}
