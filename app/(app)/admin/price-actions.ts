'use server';

import type { ActionResult } from '@/lib/action-result';
import { setModelPriceSchema, type ModelPriceView } from '@/lib/schemas/prices';
import { asAdmin } from '@/server/admin/access';
import { actionInput } from '@/server/http/action-input';
import { setPrice } from '@/server/providers/prices';

/**
 * The Admin page's price change (ADR 048): what PUT /api/v1/admin/prices does, resolving the admin itself. A
 * non-admin gets not_found, as for every admin action, and nothing changes.
 */
export async function setModelPriceAction(input: unknown): Promise<ActionResult<ModelPriceView | null>> {
  return asAdmin(() => setPrice(actionInput(setModelPriceSchema, input)));
}
