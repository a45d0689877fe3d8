'use server';

import type { ActionResult } from '@/lib/action-result';
import { requireUser } from '@/server/auth/require-user';
import { actionId } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { deleteFile } from '@/server/files/files';

/**
 * The Files panel's one mutation besides uploads (which are streamed POSTs to the files route, since an action
 * would buffer the whole file): delete a file with all its versions, by the person only. The same server function
 * as DELETE /api/v1/files/:id; another owner's id answers not_found, like a missing one, and deletes nothing.
 */
export async function deleteFileAction(fileId: unknown): Promise<ActionResult<{ deleted: true }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteFile(user.id, actionId(fileId));
    return { deleted: true as const };
  });
}
