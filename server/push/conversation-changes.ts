import 'server-only';
import type { EventEmitter } from 'node:events';
import { afterCommit } from '@/server/db';
import { currentTx } from '@/server/db/tx-scope';
import { pushBus } from './bus';

/**
 * Conversation changes have no revision column, so their event ids come from one process-wide counter, seeded from
 * the clock at start so ids keep rising across restarts. `last` remembers, for the most recently changed
 * conversations (bounded), the id of their latest change; a reconnecting client whose Last-Event-ID is at or past
 * it missed nothing. Anything not known for sure (an id from before this process, a forgotten conversation) is
 * answered with "re-read".
 */
const MAX_REMEMBERED = 10_000;
type Pending = Map<string, Set<string>>;
type State = { next: number; bootId: number; forgottenUpTo: number; last: Map<string, number>; pending: Pending | null };
const PENDING = Symbol('pending conversation changes');
const g = globalThis as unknown as { __ensembleConversationChanges?: State };
function state(): State {
  if (!g.__ensembleConversationChanges) {
    const bootId = Date.now() * 1_000;
    g.__ensembleConversationChanges = { next: bootId, bootId, forgottenUpTo: bootId, last: new Map(), pending: null };
  }
  return g.__ensembleConversationChanges;
}

/** The id a stream's first message carries: the newest id given so far (nothing newer has happened). */
export const currentConversationEventId = (): number => state().next;

/** Did `conversationId` change after event id `seen`? (true when that can't be known) */
export function changedSince(conversationId: string, seen: number): boolean {
  const s = state();
  if (seen < s.bootId || seen > s.next) return true;
  const last = s.last.get(conversationId);
  return last === undefined ? seen < s.forgottenUpTo : last > seen;
}

/**
 * Note a change to one of the conversation's runs. Inside a write transaction the message goes out once it commits
 * (never after a rollback), the changes of one transaction coalesced; outside one (run events are written beside the
 * checkpoints, not in a writeTx: noted once their own transaction is done), in a microtask, the changes of one tick
 * coalesced.
 */
export function noteConversationChange(conversationId: string, runId: string): void {
  const pending = pendingChanges();
  const runs = pending.get(conversationId) ?? new Set<string>();
  runs.add(runId);
  pending.set(conversationId, runs);
}

function pendingChanges(): Pending {
  const scope = currentTx();
  if (scope) {
    const { value, created } = scope.local<Pending>(PENDING, () => new Map());
    if (created) afterCommit(() => flush(value));
    return value;
  }
  const s = state();
  if (!s.pending) {
    const pending: Pending = (s.pending = new Map());
    afterCommit(() => {
      if (s.pending === pending) s.pending = null;
      flush(pending);
    });
  }
  return s.pending;
}

function flush(pending: Pending): void {
  const s = state();
  for (const [conversationId, runs] of pending) {
    const id = ++s.next;
    s.last.delete(conversationId);
    s.last.set(conversationId, id);
    if (s.last.size > MAX_REMEMBERED) {
      const [oldest, oldestId] = s.last.entries().next().value!;
      s.last.delete(oldest);
      s.forgottenUpTo = Math.max(s.forgottenUpTo, oldestId);
    }
    pushBus().emit('conversation', { conversationId, id, runIds: [...runs] });
  }
}

type RunEmitter = EventEmitter<{
  'run:started': [{ runId: string; conversationId: string }];
  'run:finished': [{ runId: string; conversationId: string; remote?: boolean }];
}>;

/**
 * Forward run start/finish (server/agents/run-events.ts) into conversation changes, once per process. Push takes
 * the emitter as a parameter so it never imports agents (agents import push to announce run events).
 */
export function bridgeRunEvents(events: RunEmitter): void {
  const flagged = events as RunEmitter & { __pushBridged?: true };
  if (flagged.__pushBridged) return;
  flagged.__pushBridged = true;
  // A run that finished in another process: that process announced its conversation change, which the bridge relays.
  const forward = (e: { runId: string; conversationId: string; remote?: boolean }) => {
    if (!e.remote) noteConversationChange(e.conversationId, e.runId);
  };
  events.on('run:started', forward);
  events.on('run:finished', forward);
}

/** A change another process made (the push bridge relays it): numbered and announced here like our own. */
export function announceConversationChange(conversationId: string, runIds: readonly string[]): void {
  flush(new Map([[conversationId, new Set(runIds)]]));
}

/**
 * Changes may have been missed (the push bridge was away): nothing before now counts as known, so a stream that
 * reconnects with an older Last-Event-ID is told to re-read.
 */
export function forgetConversationChanges(): void {
  const s = state();
  s.forgottenUpTo = s.next;
  s.last.clear();
}
