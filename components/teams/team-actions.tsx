'use client';

import { createActionsContext } from '@/components/ui/actions-context';
import type { ActionResult } from '@/lib/action-result';
import type { CreateTeamInput, RespondInput, SendRequestInput } from '@/lib/schemas/team';
import type { UpdateTeamInput } from '@/lib/schemas/team-budget';
import type { CloneTeamInput, TeamSettingsInput } from '@/lib/schemas/team-settings';
import type { CreateStateEntryInput, UpdateStateEntryInput } from '@/lib/schemas/team-state';
import type { RetryJobInput } from '@/lib/schemas/team-steer';
import type { ApiCancelAllResult, ApiJob, ApiStateEntry, ApiTeam } from '@/lib/types/team';

/** The team pages' server actions (app/(app)/teams/actions.ts), provided by app/(app)/teams/layout.tsx. */
export type TeamActions = {
  createTeam: (input: CreateTeamInput) => Promise<ActionResult<ApiTeam>>;
  sendRequest: (teamId: string, input: SendRequestInput) => Promise<ActionResult<{ jobs: Array<{ id: string; memberId: string; status: string }> }>>;
  cancelJob: (teamId: string, jobId: string) => Promise<ActionResult<{ job: ApiJob }>>;
  respondToJob: (teamId: string, jobId: string, input: RespondInput) => Promise<ActionResult<{ job: ApiJob }>>;
  reconnect: (teamId: string) => Promise<ActionResult<ApiTeam>>;
  remove: (teamId: string) => Promise<ActionResult<null>>;
  updateBudget: (teamId: string, input: UpdateTeamInput) => Promise<ActionResult<ApiTeam>>;
  createStateEntry: (teamId: string, input: CreateStateEntryInput) => Promise<ActionResult<{ entry: ApiStateEntry }>>;
  /** `updated: false`: the entry changed since `expectedRevision`; `entry` is how it is now (nothing was written). */
  updateStateEntry: (teamId: string, entryId: string, input: UpdateStateEntryInput) => Promise<ActionResult<{ updated: boolean; entry: ApiStateEntry }>>;
  updateSettings: (teamId: string, input: TeamSettingsInput) => Promise<ActionResult<ApiTeam>>;
  cloneTeam: (teamId: string, input: CloneTeamInput) => Promise<ActionResult<ApiTeam>>;
  retryJob: (teamId: string, jobId: string, input: RetryJobInput) => Promise<ActionResult<{ job: ApiJob }>>;
  cancelAll: (teamId: string) => Promise<ActionResult<ApiCancelAllResult>>;
};

const context = createActionsContext<TeamActions>('Team');
export const TeamActionsProvider = context.Provider;
export const useTeamActions = context.useActions;
