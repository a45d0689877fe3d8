import type { ReactNode } from 'react';
import { TeamActionsProvider } from '@/components/teams/team-actions';
import {
  cancelAllJobsAction,
  cancelJobAction,
  cloneTeamAction,
  createStateEntryAction,
  createTeamAction,
  deleteTeamAction,
  reconnectTeamAction,
  respondToJobAction,
  retryJobAction,
  sendTeamRequestAction,
  updateStateEntryAction,
  updateTeamBudgetAction,
  updateTeamSettingsAction,
} from './actions';

/** Hands the team pages' server actions to their client components (components never import app/). */
export default function TeamsLayout({ children }: { children: ReactNode }) {
  return (
    <TeamActionsProvider
      actions={{
        createTeam: createTeamAction,
        sendRequest: sendTeamRequestAction,
        cancelJob: cancelJobAction,
        respondToJob: respondToJobAction,
        reconnect: reconnectTeamAction,
        remove: deleteTeamAction,
        updateBudget: updateTeamBudgetAction,
        createStateEntry: createStateEntryAction,
        updateStateEntry: updateStateEntryAction,
        updateSettings: updateTeamSettingsAction,
        cloneTeam: cloneTeamAction,
        retryJob: retryJobAction,
        cancelAll: cancelAllJobsAction,
      }}
    >
      {children}
    </TeamActionsProvider>
  );
}
