import 'server-only';
import crypto from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { CreateProviderData, ProviderView, UpdateProviderData } from '@/lib/schemas/providers';
import { unsupportedParameters } from '@/server/agents/model-call/unsupported-parameters';
import { getDb, schema, writeTx } from '@/server/db';
import { isUniqueViolation } from '@/server/db/errors';
import { AppError, notFound } from '@/server/http/errors';
import { lastFour, seal } from './secret-box';

/**
 * The providers table (ADR 043). Every function here is for an admin: the caller (action or route) has checked.
 * Nothing here returns, throws or logs a key: views carry `••••last4`, and the sealed key stays in the row.
 */

export type ProviderRow = typeof schema.providers.$inferSelect;

const MASK = '••••';

export function toProviderView(row: ProviderRow): ProviderView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    kind: row.kind,
    baseUrl: row.baseUrl,
    apiKey: row.apiKeyCipher ? `${MASK}${row.apiKeyLast4 ?? ''}` : null,
    models: row.models ?? [],
    modelsFetchedAt: row.modelsFetchedAt ? row.modelsFetchedAt.toISOString() : null,
    maxConcurrent: row.maxConcurrent,
    requestsPerMinute: row.requestsPerMinute,
    refusedParameters: unsupportedParameters(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const slugTaken = (slug: string) => new AppError(409, 'slug_taken', `A provider named "${slug}" already exists`, { slug: 'Already used by another provider' });

export async function listProviders(): Promise<ProviderView[]> {
  const rows = await getDb().select().from(schema.providers).orderBy(asc(schema.providers.slug));
  return rows.map(toProviderView);
}

export async function providerRow(id: string): Promise<ProviderRow> {
  const [row] = await getDb().select().from(schema.providers).where(eq(schema.providers.id, id));
  if (!row) throw notFound('Provider');
  return row;
}

export async function providerRowBySlug(slug: string): Promise<ProviderRow | undefined> {
  const [row] = await getDb().select().from(schema.providers).where(eq(schema.providers.slug, slug));
  return row;
}

/** The sealed key and its last four characters, or nulls for no key. Sealed with the row's id as additional data. */
function keyColumns(id: string, apiKey: string | null | undefined) {
  return apiKey ? { apiKeyCipher: seal(apiKey, id), apiKeyLast4: lastFour(apiKey) } : { apiKeyCipher: null, apiKeyLast4: null };
}

export async function createProvider(input: CreateProviderData): Promise<ProviderView> {
  const id = crypto.randomUUID();
  const now = new Date();
  try {
    const row = await writeTx(async (tx) => {
      const [inserted] = await tx
        .insert(schema.providers)
        .values({
          id,
          slug: input.slug,
          name: input.name,
          kind: input.kind,
          baseUrl: input.baseUrl,
          ...keyColumns(id, input.apiKey),
          maxConcurrent: input.maxConcurrent ?? null,
          requestsPerMinute: input.requestsPerMinute ?? null,
          updatedAt: now,
        })
        .returning();
      return inserted!;
    });
    return toProviderView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(input.slug);
    throw err;
  }
}

export async function updateProvider(id: string, input: UpdateProviderData): Promise<ProviderView> {
  const row = await writeTx(async (tx) => {
    const changes: Partial<ProviderRow> = { updatedAt: new Date() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.baseUrl !== undefined) changes.baseUrl = input.baseUrl;
    if (input.maxConcurrent !== undefined) changes.maxConcurrent = input.maxConcurrent;
    if (input.requestsPerMinute !== undefined) changes.requestsPerMinute = input.requestsPerMinute;
    if (input.apiKey !== undefined) Object.assign(changes, keyColumns(id, input.apiKey));
    // A new endpoint or key may list other models: the cached list is dropped rather than shown as theirs.
    if (input.baseUrl !== undefined || input.apiKey !== undefined) Object.assign(changes, { models: null, modelsFetchedAt: null });
    const [updated] = await tx.update(schema.providers).set(changes).where(eq(schema.providers.id, id)).returning();
    return updated;
  });
  if (!row) throw notFound('Provider');
  return toProviderView(row);
}

/** Remove a provider. Its agents stay as they are (editable); their runs fail naming it (server/providers/resolve.ts). */
export async function deleteProvider(id: string): Promise<void> {
  const removed = await writeTx((tx) => tx.delete(schema.providers).where(eq(schema.providers.id, id)).returning({ id: schema.providers.id }));
  if (removed.length === 0) throw notFound('Provider');
}

/** Cache a model list the provider gave (discovery.ts), unless the row changed meanwhile (a new URL or key). */
export async function saveModels(row: ProviderRow, models: string[]): Promise<ProviderRow | undefined> {
  return writeTx(async (tx) => {
    const [current] = await tx.select().from(schema.providers).where(eq(schema.providers.id, row.id));
    if (!current || current.updatedAt.getTime() !== row.updatedAt.getTime()) return current;
    const [updated] = await tx
      .update(schema.providers)
      .set({ models, modelsFetchedAt: new Date() })
      .where(eq(schema.providers.id, row.id))
      .returning();
    return updated;
  });
}
