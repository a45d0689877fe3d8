import 'server-only';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { StopReason } from '@/lib/types/stop-reason';
import { contentText, ensembleMeta } from '../messages';
import { guardNoteMessage, isGuardNote, type PendingNote } from './notes';
import { loopGuard } from './loops';
import { tokenGuard } from './tokens';
import { turnGuard } from './turns';
import type { ResponseGuard, ResponseGuardInput } from './types';

/**
 * The built-in guards a model response meets before its tool calls run, in order (graph.ts callModel). One guard per
 * file; add a guard by appending it here (and its name to GRAPH_GUARDS in graph.ts, the assembly record).
 */
export const RESPONSE_GUARDS: ResponseGuard[] = [turnGuard, tokenGuard, loopGuard];

// Guards a domain plugs in at start-up (delegation's delegation-cap: server/agents/delegation/register.ts), so the
// guards never import that domain. Route bundles and instrumentation may load separate copies of this module: one
// registry per process, on globalThis.
const g = globalThis as unknown as { __ensembleResponseGuards?: Map<string, ResponseGuard> };
const registered = (g.__ensembleResponseGuards ??= new Map());

/**
 * Register (or replace, by name) a response guard. Registered guards run after the built-in ones, in the order they
 * were first registered, and their names take the same place in the assembly record (graph.ts graphGuards()).
 */
export function registerResponseGuard(guard: ResponseGuard): void {
  registered.set(guard.name, guard);
}

export function registeredGuardNames(): string[] {
  return [...registered.keys()];
}

/** Every guard this process applies, in order: RESPONSE_GUARDS, then the registered ones. */
export function responseGuards(): ResponseGuard[] {
  return [...RESPONSE_GUARDS, ...registered.values()];
}

/** Stop reasons after which the model is not called again (the others require an answer now). */
const NO_ANSWER_CALL: ReadonlySet<StopReason> = new Set(['turn_capped']);

export type GuardedResponse = {
  message: AIMessage;
  /** The first guard that stopped the run says why. */
  stopReason?: StopReason;
  notes: PendingNote[];
  /** The calls were removed and the response has no text: one more model call, without tools, must answer. */
  answerNow: boolean;
};

/**
 * Run the response through responseGuards(). Each guard sees the response the previous one kept. The stop reason
 * is written into the kept response's server meta (`additional_kwargs.ensemble.stopReason`), with the run, so the
 * run's outcome reads it back from the checkpoint (thread.ts outcomeOf).
 */
export async function applyResponseGuards(input: ResponseGuardInput, guards: readonly ResponseGuard[] = responseGuards()): Promise<GuardedResponse> {
  let message = input.message;
  let stopReason: StopReason | undefined;
  const notes: PendingNote[] = [];
  for (const guard of guards) {
    const verdict = await guard.check({ ...input, message });
    if (!verdict) continue;
    message = verdict.message;
    if (verdict.stopReason && !stopReason) stopReason = verdict.stopReason;
    if (verdict.note) notes.push({ text: verdict.note, guard: guard.name, ...(verdict.stopReason ? { stopReason: verdict.stopReason } : {}) });
  }
  if (stopReason) setMeta(message, { stopReason, ...(input.run ? { stopRunId: input.run.runId } : {}) });
  const answerNow = !!stopReason && !NO_ANSWER_CALL.has(stopReason) && !message.tool_calls?.length && !hasText(message);
  return { message, ...(stopReason ? { stopReason } : {}), notes, answerNow };
}

export const hasText = (message: BaseMessage): boolean => contentText(message.content).trim().length > 0;

export function setMeta(message: BaseMessage, fields: Record<string, unknown>): void {
  const meta = (message.additional_kwargs.ensemble ?? {}) as Record<string, unknown>;
  message.additional_kwargs.ensemble = { ...meta, ...fields };
}

type StoredNote = PendingNote & { runId?: string };

/**
 * Notes for a response that still has tool calls can't sit between the calls and their results (providers refuse
 * that): they wait on the response's server meta and are delivered before the next model call (deliverableNotes).
 */
export function holdNotes(message: AIMessage, notes: readonly PendingNote[], runId: string | undefined): void {
  if (!notes.length) return;
  const held: StoredNote[] = notes.map((n) => ({ ...n, ...(runId ? { runId } : {}) }));
  setMeta(message, { pendingNotes: held });
}

/** The note messages for `notes`, with ids derived from the response they belong to (a redone step makes the same). */
export function noteMessages(responseId: string, notes: readonly StoredNote[], runId: string | undefined): BaseMessage[] {
  return notes.map((n, i) => guardNoteMessage(n, `guard:${responseId}:${i}`, n.runId ?? runId));
}

/**
 * Held notes of the newest response that are not in the thread yet. Not once a new turn has begun after it (a
 * clarification answer, the next request): a warning about an earlier run is not news for this one.
 */
export function deliverableNotes(messages: readonly BaseMessage[]): BaseMessage[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.getType() === 'human' && !isGuardNote(m)) return [];
    if (m.getType() !== 'ai') continue;
    const held = ensembleMeta(m)?.pendingNotes as StoredNote[] | undefined;
    if (!Array.isArray(held) || !held.length || !m.id) return [];
    const present = new Set(messages.slice(i + 1).filter(isGuardNote).map((n) => n.id));
    return noteMessages(m.id, held, undefined).filter((n) => !present.has(n.id));
  }
  return [];
}
