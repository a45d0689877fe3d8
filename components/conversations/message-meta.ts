/**
 * What a message's framework metadata means for the chat. Pure: the timeline asks these and the components
 * only render the answers. Meta arrives as unknown JSON, so every field is checked before it is used.
 */
import type { Message } from './types';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export type UserMessageView =
  /** An ordinary message to this conversation's agent. */
  | { kind: 'plain' }
  /** The person's @mention message: it went to team members, not to this agent. */
  | { kind: 'mention'; jobIds: string[]; labels: string[] | null }
  /** A finished request's result returned here. The text shown is the result, never the framework preamble. */
  | { kind: 'receipt'; memberName: string; status: 'completed' | 'failed'; resultText: string; parentJobId: string | null }
  /** In a member's conversation: a request from the person or a teammate. */
  | { kind: 'request'; from: string };

export function userMessageView(message: Pick<Message, 'meta'>): UserMessageView {
  const meta = message.meta;
  switch (meta?.kind) {
    case 'mention': {
      const jobIds = Array.isArray(meta.jobIds) ? meta.jobIds.filter((id): id is string => typeof id === 'string') : [];
      const labels = Array.isArray(meta.labels) ? meta.labels.filter((l): l is string => typeof l === 'string') : null;
      return { kind: 'mention', jobIds, labels: labels && labels.length > 0 ? labels : null };
    }
    case 'receipt':
      return {
        kind: 'receipt',
        memberName: str(meta.memberName)?.trim() || 'a team member',
        status: meta.status === 'failed' ? 'failed' : 'completed',
        resultText: str(meta.resultText) ?? '',
        parentJobId: str(meta.parentJobId),
      };
    case 'team_request':
      return { kind: 'request', from: str(meta.from)?.trim() || 'a teammate' };
    default:
      return { kind: 'plain' };
  }
}

/** An assistant-side message the framework wrote (not the agent speaking). */
export function isFrameworkNote(message: Pick<Message, 'role' | 'meta'>): boolean {
  return message.role === 'assistant' && message.meta?.kind === 'framework_note';
}

// The note the server writes after queueing mentions (server/teams/mentions.ts sendMentions).
const QUEUED_NOTE = /^Queued (?:a request|\d+ requests) to ([\s\S]+)\. Each result will be returned to this conversation\.$/;

/**
 * The "Sent to" line of a mention message: the labels in its meta when the server recorded them, else the
 * recipients named by the framework note that follows it, else a count of the requests.
 */
export function sentToLine(view: Extract<UserMessageView, { kind: 'mention' }>, note: Pick<Message, 'text'> | null): string {
  if (view.labels) return `Sent to: ${view.labels.join(', ')}`;
  const named = note ? QUEUED_NOTE.exec(note.text.trim())?.[1] : undefined;
  if (named) return `Sent to: ${named}`;
  const n = view.jobIds.length;
  return n === 1 ? 'Sent to 1 team member' : `Sent to ${n} team members`;
}
