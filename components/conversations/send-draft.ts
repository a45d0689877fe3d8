/** One press of Send for a plain message to the conversation's agent: the one send step (lib/send-step.ts). */
import { LIMITS } from '@/lib/limits';
import type { KeyedDraft } from '@/lib/idempotency/draft-key';
import { sendStep } from '@/lib/send-step';
import { sendErrorMessage } from './errors';

export type SendAttempt =
  /** Nothing was sent: the draft is invalid, blank, or sending is blocked. `error` says why. */
  | { outcome: 'refused'; error: string; keyed: KeyedDraft | null }
  /** The server refused or could not be reached: the draft stays, and so does its key for the retry. */
  | { outcome: 'failed'; error: string; keyed: KeyedDraft }
  /** Sent: `draft` is what the box should now hold (cleared unless the person typed on meanwhile). */
  | { outcome: 'sent'; draft: string; keyed: null };

export async function sendDraft(opts: {
  text: string;
  keyed: KeyedDraft | null;
  busyMessage: string | null;
  send: (text: string, idempotencyKey: string) => Promise<void>;
  /** The draft as it is when the server answers (read late: the person may have kept typing). */
  currentDraft: () => string;
  mint?: () => string;
}): Promise<SendAttempt> {
  const step = await sendStep({
    draft: { text: opts.text, memberIds: [] },
    bound: LIMITS.message,
    blankError: 'Write a message first.',
    busyMessage: opts.busyMessage,
    keyed: opts.keyed,
    send: (draft, key) => opts.send(draft.text, key),
    errorMessage: sendErrorMessage,
    mint: opts.mint,
  });
  if (step.outcome !== 'sent') return step;
  const now = opts.currentDraft();
  return { outcome: 'sent', draft: now === step.sent.text ? '' : now, keyed: null };
}
