'use server';

import type { ActionResult } from '@/lib/action-result';
import { bulkAnswerSchema } from '@/lib/schemas/inbox';
import type { BulkAnswerResult } from '@/lib/types/inbox';
import { requireUser } from '@/server/auth/require-user';
import { actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { answerApprovals } from '@/server/inbox/bulk-answer';

/**
 * Approve or decline the selected tool calls at once; each item's outcome comes back (one answered elsewhere meanwhile
 * is reported, never fails the rest). Another owner's ids are not_found items and change nothing.
 */
export async function answerApprovalsAction(input: unknown): Promise<ActionResult<BulkAnswerResult>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return answerApprovals(user.id, actionInput(bulkAnswerSchema, input));
  });
}
