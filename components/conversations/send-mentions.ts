/**
 * One press of Send while the draft has recipients: the message goes to those team members (one request each)
 * instead of to this conversation's agent. Pure-ish like sendDraft, so tests drive it with a fake server.
 *
 * The message key follows the draft's content (text + recipients): a retry after an error or a lost response
 * reuses it, so the server answers with the requests the first attempt queued instead of queueing new ones.
 */
import { requestText } from '@/lib/mentions/request-text';
import { draftStillEquals, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { LIMITS } from '@/lib/limits';
import type { QueuedMention, Recipient } from '@/lib/mentions/types';
import { sendStep } from '@/lib/send-step';
import { sendErrorMessage } from './errors';

export type MentionDraft = { text: string; recipients: Recipient[] };

export type MentionAttempt =
  | { outcome: 'refused'; error: string; keyed: KeyedDraft | null }
  /** Text and recipients stay, and so does the key for the retry. */
  | { outcome: 'failed'; error: string; keyed: KeyedDraft }
  /** `draft` is what the composer should now hold: emptied unless the person changed it meanwhile. */
  | { outcome: 'sent'; jobs: QueuedMention[]; draft: MentionDraft; keyed: null };

const ids = (d: MentionDraft) => d.recipients.map((r) => r.memberId);

/** The one send step (lib/send-step.ts) with the draft's recipients; the request text drops a mention's trailing space. */
export async function sendMentionDraft(opts: {
  draft: MentionDraft;
  keyed: KeyedDraft | null;
  busyMessage: string | null;
  send: (text: string, memberIds: string[], messageKey: string) => Promise<QueuedMention[]>;
  currentDraft: () => MentionDraft;
  mint?: () => string;
}): Promise<MentionAttempt> {
  const step = await sendStep({
    draft: { text: opts.draft.text, memberIds: ids(opts.draft) },
    bound: LIMITS.message,
    blankError: 'Write a message for the recipients first.',
    busyMessage: opts.busyMessage,
    keyed: opts.keyed,
    send: (draft, key) => opts.send(requestText(draft.text), [...draft.memberIds], key),
    errorMessage: sendErrorMessage,
    mint: opts.mint,
  });
  if (step.outcome !== 'sent') return step;
  const now = opts.currentDraft();
  const unchanged = draftStillEquals({ text: now.text, memberIds: ids(now) }, step.sent);
  return { outcome: 'sent', jobs: step.result, draft: unchanged ? { text: '', recipients: [] } : now, keyed: null };
}

/** The short confirmation after a send: "Sent to Launch / Writer and Launch / Reviewer." */
export function mentionConfirmation(jobs: readonly Pick<QueuedMention, 'label'>[]): string {
  const labels = jobs.map((j) => j.label);
  const list = labels.length <= 1 ? (labels[0] ?? 'no one') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return `Sent to ${list}. Each result will appear here.`;
}
