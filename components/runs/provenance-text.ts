/**
 * The small label on a conversation message saying what it is and who produced it, from the server-owned
 * provenance (lib/types/provenance.ts), so a person can always tell their own words from what the system added:
 * the person's words say "You"; everything the framework put into the conversation — a member's request, a
 * receipt, shared context, a summary, a note — says "framework · …" and names whom it came from. Pure. Names
 * inside come from members (untrusted): the label is shown as plain text.
 */
import type { ContentKind, Provenance } from '@/lib/types/provenance';

/** What the message is; `from` names the member it came from or is about, when known. */
const KIND_TEXT: Record<ContentKind, (from: string | undefined) => string> = {
  person_message: () => 'message',
  team_request: (from) => (from ? `request from ${from}` : 'team request'),
  receipt: (from) => (from ? `receipt from ${from}` : 'receipt'),
  shared_context: (from) => (from ? `shared context from ${from}` : 'shared context'),
  clarification_answer: () => 'answer to a question',
  mention: () => 'mention',
  note: () => 'note',
  compaction: () => 'earlier turns summarized',
  delegated_task: (from) => (from ? `task delegated by ${from}` : 'delegated task'),
  assistant: (from) => (from ? `reply from ${from}` : 'reply'),
  tool_result: () => 'tool result',
};

export function provenanceLabel(p: Provenance): string {
  const about = p.about?.trim() || (p.producer.type === 'member' ? p.producer.name.trim() : '') || undefined;
  const what = KIND_TEXT[p.contentKind]?.(about) ?? p.contentKind;
  if (p.producer.type === 'person') return p.contentKind === 'person_message' ? 'You' : `You · ${what}`;
  if (p.producer.type === 'agent') return `agent · ${what}`;
  return `framework · ${what}`;
}

/** Whether the label says anything the bubble doesn't: the agent's own replies and tool results need none. */
export const showsProvenance = (p: Provenance | undefined): p is Provenance =>
  p !== undefined && !(p.producer.type === 'agent' && (p.contentKind === 'assistant' || p.contentKind === 'tool_result'));
