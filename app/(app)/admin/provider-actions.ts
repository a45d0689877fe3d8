'use server';

import type { ActionResult } from '@/lib/action-result';
import { createProviderSchema, updateProviderSchema, type ProviderTestResult, type ProviderView } from '@/lib/schemas/providers';
import { asAdmin } from '@/server/admin/access';
import { actionId, actionInput } from '@/server/http/action-input';
import { testProvider } from '@/server/providers/discovery';
import { createProvider, deleteProvider, updateProvider } from '@/server/providers/store';

/**
 * The Admin page's provider mutations: the same server/providers functions and schemas as
 * /api/v1/admin/providers, each resolving the admin itself, their arguments checked as every action's are. A
 * non-admin gets not_found, as for every admin action, and nothing changes.
 */

export async function createProviderAction(input: unknown): Promise<ActionResult<ProviderView>> {
  return asAdmin(() => createProvider(actionInput(createProviderSchema, input)));
}

export async function updateProviderAction(id: unknown, input: unknown): Promise<ActionResult<ProviderView>> {
  return asAdmin(() => updateProvider(actionId(id), actionInput(updateProviderSchema, input)));
}

export async function deleteProviderAction(id: unknown): Promise<ActionResult<null>> {
  return asAdmin(async () => {
    await deleteProvider(actionId(id));
    return null;
  });
}

export async function testProviderAction(id: unknown): Promise<ActionResult<ProviderTestResult & { provider: ProviderView }>> {
  return asAdmin(() => testProvider(actionId(id)));
}
