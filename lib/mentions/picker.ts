/**
 * Pure rules of the conversation composer's @mention picker. Detection, query removal and index wrapping are
 * shared with the team composer (./mention-query); this adds what differs here: targets are matched over
 * their "Team / Member" label and become recipients with that label.
 */
import { filterByName, findMentionQuery, removeMentionQuery, type MentionQuery } from '@/lib/mentions/mention-query';
import type { MentionTarget, Recipient } from './types';

/** The `@query` at the caret, if any. Labels let a query keep its spaces while it prefixes one ("@Launch c"). */
export function mentionQueryAt(text: string, caret: number, targets: readonly MentionTarget[]): MentionQuery | null {
  return findMentionQuery(
    text,
    caret,
    targets.map((t) => t.label),
  );
}

/** Targets not yet picked whose label matches the query case-insensitively: prefix matches first, then substrings. */
export function filterTargets(targets: readonly MentionTarget[], query: string, picked: readonly Recipient[] = []): MentionTarget[] {
  const chosen = new Set(picked.map((r) => r.memberId));
  const open = targets.filter((t) => !chosen.has(t.memberId)).map((target) => ({ name: target.label, target }));
  return filterByName(open, query).map((o) => o.target);
}

/** Picking a target: the `@query` text goes away and the target joins the recipients (once). */
export function pickTarget(
  text: string,
  query: MentionQuery,
  recipients: readonly Recipient[],
  target: Pick<MentionTarget, 'memberId' | 'label'>,
): { text: string; caret: number; recipients: Recipient[] } {
  const removed = removeMentionQuery(text, query);
  const already = recipients.some((r) => r.memberId === target.memberId);
  return {
    text: removed.text,
    caret: removed.caret,
    recipients: already ? [...recipients] : [...recipients, { memberId: target.memberId, label: target.label }],
  };
}

export function removeRecipient(recipients: readonly Recipient[], memberId: string): Recipient[] {
  return recipients.filter((r) => r.memberId !== memberId);
}

/** What the open popup shows besides (or instead of) its options. */
export type PopupContent =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  /** The owner has no ready team with a member this conversation may mention. */
  | { kind: 'none' }
  | { kind: 'all-picked' }
  | { kind: 'no-match' }
  | { kind: 'options'; options: MentionTarget[] };

export function popupContent(state: {
  targets: readonly MentionTarget[] | undefined;
  loading: boolean;
  error: string | null;
  query: string;
  picked: readonly Recipient[];
}): PopupContent {
  const { targets, loading, error, query, picked } = state;
  if (!targets) return loading || !error ? { kind: 'loading' } : { kind: 'error', message: error };
  if (targets.length === 0) return { kind: 'none' };
  const options = filterTargets(targets, query, picked);
  if (options.length > 0) return { kind: 'options', options };
  return filterTargets(targets, '', picked).length === 0 ? { kind: 'all-picked' } : { kind: 'no-match' };
}

export const POPUP_TEXT = {
  loading: 'Loading team members…',
  none: 'No team members to mention. Create a team to mention its members here.',
  'all-picked': 'Every team member is already a recipient.',
  'no-match': 'No team member matches.',
} as const;
