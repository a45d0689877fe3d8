'use server';

import { createTeamSchema, respondSchema, sendRequestSchema } from '@/lib/schemas/team';
import { updateTeamSchema } from '@/lib/schemas/team-budget';
import { cloneTeamSchema, teamSettingsSchema } from '@/lib/schemas/team-settings';
import type { ActionResult } from '@/lib/action-result';
import type { ApiCancelAllResult, ApiJob, ApiStateEntry, ApiTeam } from '@/lib/types/team';
import { requireUser } from '@/server/auth/require-user';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { cancelJob } from '@/server/teams/cancel';
import { cancelAllJobs } from '@/server/teams/cancel-all';
import { retryJob } from '@/server/teams/retry';
import { retryJobSchema } from '@/lib/schemas/team-steer';
import { respondToJob } from '@/server/teams/answers';
import { deleteTeam, reconnectTeam } from '@/server/teams/lifecycle';
import { sendRequest, type SentJob } from '@/server/teams/requests';
import { updateTeamBudget } from '@/server/teams/team-budget';
import { createTeam } from '@/server/teams/teams';
import { cloneTeam } from '@/server/teams/clone';
import { updateTeamSettings } from '@/server/teams/team-settings';
import { createPersonEntry, updatePersonEntry } from '@/server/teams/person-state';
import { createStateEntrySchema, updateStateEntrySchema } from '@/lib/schemas/team-state';

/**
 * The team pages' mutations: the same server/teams functions and schemas as /api/v1/teams/*, each resolving the
 * signed-in person itself. Another owner's ids answer not_found, like missing ones, and change nothing.
 */

/** Create a team; the same requestId again answers the team it already made. */
export async function createTeamAction(input: unknown): Promise<ActionResult<ApiTeam>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return (await createTeam(user.id, actionInput(createTeamSchema, input))).team;
  });
}

/** Queue one request per member; the same draftKey again answers the jobs it already queued. */
export async function sendTeamRequestAction(teamId: unknown, input: unknown): Promise<ActionResult<{ jobs: SentJob[] }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { jobs: (await sendRequest(user.id, actionId(teamId), actionInput(sendRequestSchema, input))).jobs };
  });
}

export async function cancelJobAction(teamId: unknown, jobId: unknown): Promise<ActionResult<{ job: ApiJob }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { job: await cancelJob(user.id, actionId(teamId), actionId(jobId)) };
  });
}

/** Answer a member's question (or its interrupt); the same answerKey again is the same answer. */
export async function respondToJobAction(teamId: unknown, jobId: unknown, input: unknown): Promise<ActionResult<{ job: ApiJob }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { job: await respondToJob(user.id, actionId(teamId), actionId(jobId), actionInput(respondSchema, input)) };
  });
}

/** Set or clear the team's token budget (`{ tokenBudget: number | null }`); a raise re-admits held work. */
export async function updateTeamBudgetAction(teamId: unknown, input: unknown): Promise<ActionResult<ApiTeam>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return updateTeamBudget(user.id, actionId(teamId), actionInput(updateTeamSchema, input));
  });
}

export async function reconnectTeamAction(teamId: unknown): Promise<ActionResult<ApiTeam>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return await reconnectTeam(user.id, actionId(teamId));
  });
}

export async function deleteTeamAction(teamId: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteTeam(user.id, actionId(teamId));
    return null;
  });
}

/** Add a public-state entry as the person; the same requestId again answers the entry it made. */
export async function createStateEntryAction(teamId: unknown, input: unknown): Promise<ActionResult<{ entry: ApiStateEntry }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { entry: (await createPersonEntry(user.id, actionId(teamId), actionInput(createStateEntrySchema, input))).entry };
  });
}

/**
 * Edit, archive or restore a public-state entry. A stale expectedRevision is not an error here: it answers
 * `{ updated: false, entry }` with the entry as it is now, for the side-by-side choice (the API's 409).
 */
export async function updateStateEntryAction(
  teamId: unknown,
  entryId: unknown,
  input: unknown,
): Promise<ActionResult<{ updated: boolean; entry: ApiStateEntry }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const result = await updatePersonEntry(user.id, actionId(teamId), actionId(entryId), actionInput(updateStateEntrySchema, input));
    return { updated: result.updated, entry: result.entry };
  });
}

/** Rename the team and/or edit its goal (`{ name?, goal? }`); queued requests see the new goal, admitted ones keep theirs. */
export async function updateTeamSettingsAction(teamId: unknown, input: unknown): Promise<ActionResult<ApiTeam>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return updateTeamSettings(user.id, actionId(teamId), actionInput(teamSettingsSchema, input));
  });
}

/** A new team with this one's roster and goal and a fresh request capacity; the same requestId again is the same clone. */
export async function cloneTeamAction(teamId: unknown, input: unknown): Promise<ActionResult<ApiTeam>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return (await cloneTeam(user.id, actionId(teamId), actionInput(cloneTeamSchema, input))).team;
  });
}

/** Retry a failed or cancelled request, or send it to another member (`memberId`); the same requestId is the same retry. */
export async function retryJobAction(teamId: unknown, jobId: unknown, input: unknown): Promise<ActionResult<{ job: ApiJob }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { job: (await retryJob(user.id, actionId(teamId), actionId(jobId), actionInput(retryJobSchema, input))).job };
  });
}

/** Cancel every unfinished job of the team in one step; each answered as cancelling it alone would. */
export async function cancelAllJobsAction(teamId: unknown): Promise<ActionResult<ApiCancelAllResult>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return await cancelAllJobs(user.id, actionId(teamId));
  });
}
