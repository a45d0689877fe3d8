import 'server-only';
import { EventEmitter } from 'node:events';

/** A team's activity moved to `revision`; `jobIds` are the jobs changed since the last message (may be empty). */
export type TeamChange = { teamId: string; revision: number; jobIds: string[] };

/** Something about the conversation's runs changed: a run started or finished, or run events were written. */
export type ConversationChange = { conversationId: string; id: number; runIds: string[] };

/** One of the owner's teams changed (the same commit as its TeamChange): the teams list re-reads its summaries. */
export type AccountTeamChange = { ownerId: string; teamId: string };

type BusMap = { team: [TeamChange]; conversation: [ConversationChange]; accountTeams: [AccountTeamChange] };

// Route bundles and instrumentation may load separate copies of this module: one bus per process.
const g = globalThis as unknown as { __ensemblePushBus?: EventEmitter<BusMap> };

export function pushBus(): EventEmitter<BusMap> {
  if (!g.__ensemblePushBus) {
    g.__ensemblePushBus = new EventEmitter<BusMap>();
    // One listener per open stream; the per-account stream cap bounds them, not Node's leak warning.
    g.__ensemblePushBus.setMaxListeners(0);
  }
  return g.__ensemblePushBus;
}

export function subscribeTeam(teamId: string, listener: (change: TeamChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: TeamChange) => {
    if (change.teamId === teamId) listener(change);
  };
  bus.on('team', wrapped);
  return () => bus.off('team', wrapped);
}

export function subscribeConversation(conversationId: string, listener: (change: ConversationChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: ConversationChange) => {
    if (change.conversationId === conversationId) listener(change);
  };
  bus.on('conversation', wrapped);
  return () => bus.off('conversation', wrapped);
}

export function subscribeAccountTeams(ownerId: string, listener: (change: AccountTeamChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: AccountTeamChange) => {
    if (change.ownerId === ownerId) listener(change);
  };
  bus.on('accountTeams', wrapped);
  return () => bus.off('accountTeams', wrapped);
}

export const conversationListenerCount = (): number => pushBus().listenerCount('conversation');
export const teamListenerCount = (): number => pushBus().listenerCount('team');
export const accountTeamsListenerCount = (): number => pushBus().listenerCount('accountTeams');
