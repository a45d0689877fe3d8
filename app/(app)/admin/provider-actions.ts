'use server';

import type { ActionResult } from '@/lib/action-result';
import { createProviderSchema, updateProviderSchema, type ProviderTestResult, type ProviderView } from '@/lib/schemas/providers';
import { requireAdmin } from '@/server/admin/access';
import { toActionResult } from '@/server/http/action-result';
import { parseOrThrow } from '@/server/http/validation';
import { testProvider } from '@/server/providers/discovery';
import { createProvider, deleteProvider, updateProvider } from '@/server/providers/store';

/**
 * The Admin page's provider mutations: the same server/providers functions as /api/v1/admin/providers,
 * each resolving the admin itself. A non-admin gets not_found, as for every admin action, and nothing changes.
 */
async function asAdmin<T>(fn: () => T | Promise<T>): Promise<ActionResult<T>> {
  return toActionResult(async () => {
    await requireAdmin();
    return fn();
  });
}

const idOf = (id: unknown) => (typeof id === 'string' ? id : '');

export async function createProviderAction(input: unknown): Promise<ActionResult<ProviderView>> {
  return asAdmin(() => createProvider(parseOrThrow(createProviderSchema, input)));
}

export async function updateProviderAction(id: unknown, input: unknown): Promise<ActionResult<ProviderView>> {
  return asAdmin(() => updateProvider(idOf(id), parseOrThrow(updateProviderSchema, input)));
}

export async function deleteProviderAction(id: unknown): Promise<ActionResult<null>> {
  return asAdmin(async () => {
    await deleteProvider(idOf(id));
    return null;
  });
}

export async function testProviderAction(id: unknown): Promise<ActionResult<ProviderTestResult & { provider: ProviderView }>> {
  return asAdmin(() => testProvider(idOf(id)));
}
