/** One press of Send, as a pure-ish async step the composer runs and the tests drive with a fake server. */
import { checkDraft } from './draft';
import { sendErrorMessage } from './errors';
import { draftAfterSuccess, keyForSend, newIdempotencyKey, type KeyedDraft } from './idempotency';

export type SendAttempt =
  /** Nothing was sent: the draft is invalid, blank, or sending is blocked. `error` says why. */
  | { outcome: 'refused'; error: string | null; keyed: KeyedDraft | null }
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
  const { text, keyed, busyMessage, send, currentDraft, mint = newIdempotencyKey } = opts;
  const check = checkDraft(text);
  if (check.error) return { outcome: 'refused', error: check.error, keyed };
  if (check.blank) return { outcome: 'refused', error: 'Write a message first.', keyed };
  if (busyMessage) return { outcome: 'refused', error: busyMessage, keyed };
  const next = keyForSend(keyed, text, mint);
  try {
    await send(next.text, next.key);
  } catch (err) {
    return { outcome: 'failed', error: sendErrorMessage(err), keyed: next };
  }
  const after = draftAfterSuccess(currentDraft(), next.text);
  return { outcome: 'sent', draft: after.draft, keyed: after.keyed };
}
