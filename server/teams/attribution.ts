import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { isGuardNote } from '@/server/agents/guards/notes';
import { contentText, ensembleMeta } from '@/server/agents/messages';

export type Attribution = { ok: true; text: string } | { ok: false; error: string };

export const MARKER_MISSING =
  "The request's message is no longer in the member conversation, so its result can't be attributed safely; inspect the conversation";
export const FOREIGN_TURN =
  'Someone else wrote in the member conversation while this request was running, so its result can’t be attributed safely; inspect the conversation';

/**
 * The member's answer to one job: the last assistant text after the job's own human message. Human turns
 * of this job (its request, its clarification answers) are fine; any other human turn after the marker
 * means the conversation moved on, and foreign text is never reported as the member's answer.
 */
export function attributeResult(thread: readonly BaseMessage[], jobId: string): Attribution {
  // A guard's note (framework text within the member's own turn) is neither a foreign turn nor the answer.
  const messages = thread.filter((m) => !isGuardNote(m));
  const ours = (m: BaseMessage) => m.getType() === 'human' && ensembleMeta(m)?.jobId === jobId;
  const start = messages.findIndex(ours);
  if (start < 0) return { ok: false, error: MARKER_MISSING };
  const after = messages.slice(start + 1);
  if (after.some((m) => m.getType() === 'human' && !ours(m))) return { ok: false, error: FOREIGN_TURN };
  const last = messages[messages.length - 1];
  if (!last || !AIMessage.isInstance(last) || last.tool_calls?.length) {
    return { ok: false, error: 'The member finished without a final answer; inspect the conversation' };
  }
  return { ok: true, text: contentText(last.content) };
}
