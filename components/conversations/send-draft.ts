/** One press of Send, as a pure-ish async step the composer runs and the tests drive with a fake server. */
import { checkDraft } from './draft';
import { sendErrorMessage } from './errors';
import { newClientId } from '@/lib/idempotency/client-id';
import { draftSignature, keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';

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
  const { text, keyed, busyMessage, send, currentDraft, mint = newClientId } = opts;
  const check = checkDraft(text);
  if (check.error) return { outcome: 'refused', error: check.error, keyed };
  if (check.blank) return { outcome: 'refused', error: 'Write a message first.', keyed };
  if (busyMessage) return { outcome: 'refused', error: busyMessage, keyed };
  // A plain message has no recipients: its content identity is the text alone.
  const next = keyForDraft(keyed, draftSignature(text, []), mint);
  try {
    await send(text, next.key);
  } catch (err) {
    return { outcome: 'failed', error: sendErrorMessage(err), keyed: next };
  }
  // The key is spent either way; the box is cleared only if it still holds what was sent.
  const now = currentDraft();
  return { outcome: 'sent', draft: now === text ? '' : now, keyed: null };
}
