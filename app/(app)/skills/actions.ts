'use server';

import type { ActionResult } from '@/lib/action-result';
import { skillCreateSchema, skillPatchSchema } from '@/lib/schemas/skill';
import type { SkillView } from '@/lib/types/skill';
import { requireUser } from '@/server/auth/require-user';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { createSkill, deleteSkill, updateSkill } from '@/server/skills/skills';

/**
 * The Skills page's writes (ADR 061): the same functions and schemas as /api/v1/skills, each resolving the signed-in
 * person itself; another account's id is not_found. A ZIP import goes to POST /api/v1/skills/import (raw bytes): up to
 * 2 MiB, past the 1 MB a page path (where actions arrive) takes (components/skills/skill-import.tsx).
 */

export async function createSkillAction(input: unknown): Promise<ActionResult<SkillView>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return createSkill(user.id, actionInput(skillCreateSchema, input));
  });
}

export async function updateSkillAction(id: unknown, input: unknown): Promise<ActionResult<SkillView>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return updateSkill(user.id, actionId(id), actionInput(skillPatchSchema, input));
  });
}

export async function deleteSkillAction(id: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteSkill(user.id, actionId(id));
    return null;
  });
}
