/**
 * One press of Send while the draft has recipients: the message goes to those team members (one request each)
 * instead of to this conversation's agent. Pure-ish like sendDraft, so tests drive it with a fake server.
 *
 * The message key follows the draft's content (text + recipients): a retry after an error or a lost response
 * reuses it, so the server answers with the requests the first attempt queued instead of queueing new ones.
 */
import { requestText } from '@/lib/mentions/request-text';
import { draftSignature, draftStillEquals, forgetKeyAfterSuccess, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { newClientId } from '@/lib/idempotency/client-id';
import type { QueuedMention, Recipient } from '@/lib/mentions/types';
import { checkDraft } from './draft';
import { sendErrorMessage } from './errors';

export type MentionDraft = { text: string; recipients: Recipient[] };

export type MentionAttempt =
  | { outcome: 'refused'; error: string; keyed: KeyedDraft | null }
  /** Text and recipients stay, and so does the key for the retry. */
  | { outcome: 'failed'; error: string; keyed: KeyedDraft }
  /** `draft` is what the composer should now hold: emptied unless the person changed it meanwhile. */
  | { outcome: 'sent'; jobs: QueuedMention[]; draft: MentionDraft; keyed: KeyedDraft | null };

const ids = (d: MentionDraft) => d.recipients.map((r) => r.memberId);

export async function sendMentionDraft(opts: {
  draft: MentionDraft;
  keyed: KeyedDraft | null;
  busyMessage: string | null;
  send: (text: string, memberIds: string[], messageKey: string) => Promise<QueuedMention[]>;
  currentDraft: () => MentionDraft;
  mint?: () => string;
}): Promise<MentionAttempt> {
  const { draft, keyed, busyMessage, send, currentDraft, mint = newClientId } = opts;
  const sent: MentionDraft = { text: draft.text, recipients: [...draft.recipients] };
  const check = checkDraft(sent.text);
  if (check.error) return { outcome: 'refused', error: check.error, keyed };
  if (check.blank) return { outcome: 'refused', error: 'Write a message for the recipients first.', keyed };
  if (busyMessage) return { outcome: 'refused', error: busyMessage, keyed };
  const next = keyForDraft(keyed, draftSignature(sent.text, ids(sent)), mint);
  let jobs: QueuedMention[];
  try {
    jobs = await send(requestText(sent.text), ids(sent), next.key);
  } catch (err) {
    return { outcome: 'failed', error: sendErrorMessage(err), keyed: next };
  }
  const now = currentDraft();
  const unchanged = draftStillEquals({ text: now.text, memberIds: ids(now) }, { text: sent.text, memberIds: ids(sent) });
  return {
    outcome: 'sent',
    jobs,
    draft: unchanged ? { text: '', recipients: [] } : now,
    keyed: forgetKeyAfterSuccess(next, next.key),
  };
}

/** The short confirmation after a send: "Sent to Launch / Writer and Launch / Reviewer." */
export function mentionConfirmation(jobs: readonly Pick<QueuedMention, 'label'>[]): string {
  const labels = jobs.map((j) => j.label);
  const list = labels.length <= 1 ? (labels[0] ?? 'no one') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return `Sent to ${list}. Each result will appear here.`;
}
