import 'server-only';
import { EventEmitter } from 'node:events';

/** A team's activity moved to `revision`; `jobIds` are the jobs changed since the last message (may be empty). */
export type TeamChange = { teamId: string; revision: number; jobIds: string[] };

/** Something about the conversation's runs changed: a run started or finished, or run events were written. */
export type ConversationChange = { conversationId: string; id: number; runIds: string[] };

type BusMap = { team: [TeamChange]; conversation: [ConversationChange] };

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

export const conversationListenerCount = (): number => pushBus().listenerCount('conversation');
export const teamListenerCount = (): number => pushBus().listenerCount('team');
