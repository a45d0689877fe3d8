import 'server-only';
import { EventEmitter } from 'node:events';

/** A team's activity moved to `revision`; `jobIds` are the jobs changed since the last message (may be empty). */
export type TeamChange = { teamId: string; revision: number; jobIds: string[] };

/** Something about the conversation's runs changed: a run started or finished, or run events were written. */
export type ConversationChange = { conversationId: string; id: number; runIds: string[] };

/** One of the owner's teams changed (the same commit as its TeamChange): the teams list re-reads its summaries. */
export type AccountTeamChange = { ownerId: string; teamId: string };

/**
 * A running run's live output (server/agents/live-output, ADR 031): the newest text of its current response,
 * ephemeral (never stored). `done`: the run finished, nothing follows. Who may see it is decided by the owner and,
 * for a team job, its team and job (server-owned run context, never model text).
 */
export type LiveOutputChange = {
  ownerId: string;
  conversationId: string;
  runId: string;
  teamId: string | null;
  jobId: string | null;
  text: string;
  truncated: boolean;
  done: boolean;
  /** The model call is being tried again (attempt of maxAttempts) after a transient failure; null or absent otherwise. */
  retrying?: { attempt: number; maxAttempts: number } | null;
  /**
   * The text is a tool's progress (an MCP tool reporting while it runs: its own name and its server's), not the model
   * writing; null or absent when the model wrote it. The model's next words replace it.
   */
  tool?: { server: string; tool: string } | null;
};

/**
 * One of the account's credentials may have stopped working (sign-out everywhere, a token revoked, a password change,
 * the account disabled): each of its open streams checks the credential it was opened with now (ADR 040).
 */
export type CredentialsChange = { accountId: string };

/** One of the owner's batches changed (created, an item moved, cancelled, ended): its stream re-reads the counts (ADR 059). */
export type BatchChange = { ownerId: string; batchId: string };

/**
 * A file of a team's workspace or a chat was created, got a new version, or was deleted (ADR 058): the scope's stream
 * says `event: file` and its Files panel re-reads.
 */
export type FileChange = { ownerId: string; fileId: string; teamId: string | null; conversationId: string | null; revision: number; deleted?: boolean };

/** What each kind of push carries (the Postgres bridge forwards the same kinds between processes). */
export type BusMap = {
  team: [TeamChange];
  conversation: [ConversationChange];
  accountTeams: [AccountTeamChange];
  liveOutput: [LiveOutputChange];
  credentials: [CredentialsChange];
  batch: [BatchChange];
  file: [FileChange];
};

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

/** Live output of the owner's runs that `match` (a team's jobs, one conversation). */
export function subscribeLiveOutput(ownerId: string, match: (change: LiveOutputChange) => boolean, listener: (change: LiveOutputChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: LiveOutputChange) => {
    if (change.ownerId === ownerId && match(change)) listener(change);
  };
  bus.on('liveOutput', wrapped);
  return () => bus.off('liveOutput', wrapped);
}

export function subscribeBatch(ownerId: string, batchId: string, listener: (change: BatchChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: BatchChange) => {
    if (change.ownerId === ownerId && change.batchId === batchId) listener(change);
  };
  bus.on('batch', wrapped);
  return () => bus.off('batch', wrapped);
}

export function subscribeCredentials(accountId: string, listener: () => void): () => void {
  const bus = pushBus();
  const wrapped = (change: CredentialsChange) => {
    if (change.accountId === accountId) listener();
  };
  bus.on('credentials', wrapped);
  return () => bus.off('credentials', wrapped);
}

/** Call after the write that revoked something of the account has committed (the streams re-read it). */
export function announceCredentialsChanged(accountId: string): void {
  pushBus().emit('credentials', { accountId });
}

export const conversationListenerCount = (): number => pushBus().listenerCount('conversation');
export const teamListenerCount = (): number => pushBus().listenerCount('team');
export const accountTeamsListenerCount = (): number => pushBus().listenerCount('accountTeams');
export const liveOutputListenerCount = (): number => pushBus().listenerCount('liveOutput');

/** The owner's file changes that `match` accepts (a team's workspace, or a chat's files). */
export function subscribeFiles(ownerId: string, match: (change: FileChange) => boolean, listener: (change: FileChange) => void): () => void {
  const bus = pushBus();
  const wrapped = (change: FileChange) => {
    if (change.ownerId === ownerId && match(change)) listener(change);
  };
  bus.on('file', wrapped);
  return () => bus.off('file', wrapped);
}
