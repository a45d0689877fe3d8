/**
 * One press of Send, for every composer (a conversation's message, its @mentions, the team's "Message to team"):
 * check the text against its bound before any request (the kit's wording, lib/text-bounds, the rule the server
 * applies), refuse a blank or a blocked send, then send under an idempotency key that follows the draft's content —
 * a retry after an error or a lost response reuses it, so the server answers with what the first attempt made
 * instead of making it again; after a success the key is spent. Pure apart from `send`, so tests drive it with a
 * fake server.
 */
import { newClientId } from '@/lib/idempotency/client-id';
import { draftSignature, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { describeTextProblem, textProblem, type TextBound } from '@/lib/text-bounds';

/** What a composer sends: its text and its recipients (none: a plain message to the conversation's agent). */
export type SendableDraft = { text: string; memberIds: readonly string[] };

export type SendStep<R> =
  /** Nothing was sent: the text does not fit, is blank, or sending is blocked. */
  | { outcome: 'refused'; error: string; keyed: KeyedDraft | null }
  /** The server refused or could not be reached: the draft stays, and so does its key for the retry. */
  | { outcome: 'failed'; error: string; keyed: KeyedDraft }
  /** Sent: `result` is the server's answer, `sent` the draft as it was sent (clear the box only if it still equals it). */
  | { outcome: 'sent'; result: R; sent: SendableDraft; keyed: null };

export async function sendStep<R>(opts: {
  draft: SendableDraft;
  bound: TextBound;
  /** What a blank draft is told. */
  blankError: string;
  /** When set, sending is refused locally with this message (a run still working). */
  busyMessage?: string | null;
  keyed: KeyedDraft | null;
  send: (draft: SendableDraft, key: string) => Promise<R>;
  /** The words for a failed request. */
  errorMessage: (err: unknown) => string;
  mint?: () => string;
}): Promise<SendStep<R>> {
  const { bound, blankError, busyMessage, keyed, send, errorMessage, mint = newClientId } = opts;
  const sent: SendableDraft = { text: opts.draft.text, memberIds: [...opts.draft.memberIds] };
  const problem = textProblem(sent.text, bound);
  if (problem) return { outcome: 'refused', error: describeTextProblem(problem, 'Message'), keyed };
  if (sent.text.trim() === '') return { outcome: 'refused', error: blankError, keyed };
  if (busyMessage) return { outcome: 'refused', error: busyMessage, keyed };
  const next = keyForDraft(keyed, draftSignature(sent.text, sent.memberIds), mint);
  let result: R;
  try {
    result = await send(sent, next.key);
  } catch (err) {
    return { outcome: 'failed', error: errorMessage(err), keyed: next };
  }
  return { outcome: 'sent', result, sent, keyed: null };
}
