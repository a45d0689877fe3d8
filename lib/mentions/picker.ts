/**
 * Pure rules of the one @mention composer (components/mentions), generic over its targets: anything with a key
 * (what routes) and a label (what is typed, shown and matched). Detection, query removal and index wrapping are in
 * ./mention-query; this adds what the list shows.
 */
import { filterByName, findMentionQuery, type MentionQuery } from '@/lib/mentions/mention-query';
import type { Recipient } from './types';

/** A target the composer can offer: `key` routes (a member id), `label` is matched and shown, `detail` is a second line. */
export type MentionOption = { key: string; label: string; detail?: string };

/** The `@query` at the caret, if any. Labels let a query keep its spaces while it prefixes one ("@Launch c"). */
export function mentionQueryAt(text: string, caret: number, options: readonly Pick<MentionOption, 'label'>[]): MentionQuery | null {
  return findMentionQuery(
    text,
    caret,
    options.map((o) => o.label),
  );
}

/** Options not yet picked whose label matches the query case-insensitively: prefix matches first, then substrings. */
export function filterOptions<T extends MentionOption>(options: readonly T[], query: string, pickedKeys: readonly string[] = []): T[] {
  const chosen = new Set(pickedKeys);
  const open = options.filter((o) => !chosen.has(o.key)).map((option) => ({ name: option.label, option }));
  return filterByName(open, query).map((o) => o.option);
}

/** Add a recipient once (a second pick of the same member changes nothing). */
export function addRecipient(recipients: readonly Recipient[], next: Recipient): Recipient[] {
  return recipients.some((r) => r.memberId === next.memberId) ? [...recipients] : [...recipients, next];
}

export function removeRecipient(recipients: readonly Recipient[], memberId: string): Recipient[] {
  return recipients.filter((r) => r.memberId !== memberId);
}

/** What the open list shows besides (or instead of) its options. */
export type ListContent<T> =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  /** There is no one to mention at all. */
  | { kind: 'none' }
  | { kind: 'all-picked' }
  | { kind: 'no-match' }
  | { kind: 'options'; options: T[] };

export function listContent<T extends MentionOption>(state: {
  /** undefined until the targets have loaded. */
  options: readonly T[] | undefined;
  loading: boolean;
  error: string | null;
  query: string;
  pickedKeys: readonly string[];
}): ListContent<T> {
  const { options, loading, error, query, pickedKeys } = state;
  if (!options) return loading || !error ? { kind: 'loading' } : { kind: 'error', message: error };
  if (options.length === 0) return { kind: 'none' };
  const matches = filterOptions(options, query, pickedKeys);
  if (matches.length > 0) return { kind: 'options', options: matches };
  return filterOptions(options, '', pickedKeys).length === 0 ? { kind: 'all-picked' } : { kind: 'no-match' };
}

/** The words each composer shows for the list's non-option states (`error` leads the load error's message). */
export type ListTexts = Record<'loading' | 'none' | 'all-picked' | 'no-match' | 'error', string>;
