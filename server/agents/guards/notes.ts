import 'server-only';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { StopReason } from '@/lib/types/stop-reason';
import { contentText, ensembleMeta } from '../messages';
import { frameworkNote } from '../provenance';

/** Server meta kind of a guard's note (a framework-written human-side message; never a system message). */
export const GUARD_NOTE_KIND = 'guard_note';

/** A note a guard wants shown, before it becomes a message: its text and what it is about. */
export type PendingNote = { text: string; guard: string; stopReason?: StopReason };

/**
 * A guard's note as the message the agent reads as its next input and the person sees in the conversation:
 * framework text with note provenance, on the human side (a provider reads it as input, and the next call
 * never treats it as the model's own words or as a prefill of its answer). It does not start a new turn: turn
 * counting, the scripted model and team attribution all skip it (isGuardNote).
 */
export function guardNoteMessage(note: PendingNote, id: string, runId: string | undefined): HumanMessage {
  return new HumanMessage({
    id,
    content: note.text,
    additional_kwargs: {
      ensemble: {
        kind: GUARD_NOTE_KIND,
        guard: note.guard,
        ...(runId ? { runId } : {}),
        ...(note.stopReason ? { stopReason: note.stopReason } : {}),
        provenance: frameworkNote(),
      },
    },
  });
}

export const isGuardNote = (message: BaseMessage): boolean => message.getType() === 'human' && ensembleMeta(message)?.kind === GUARD_NOTE_KIND;

/** Index of the newest human message that starts a turn (a guard note does not); -1 when there is none. */
export function turnStartIndex(messages: readonly BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.getType() === 'human' && !isGuardNote(m)) return i;
  }
  return -1;
}

/** The messages of the current turn: everything after its human message. */
export const turnMessages = (messages: readonly BaseMessage[]): BaseMessage[] => messages.slice(turnStartIndex(messages) + 1);

/** The text of a note message (for an outcome's error). */
export const noteText = (message: BaseMessage): string => contentText(message.content);
