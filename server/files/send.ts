import 'server-only';
import { writeTx } from '@/server/db';
import { attachedFiles, attachmentNote, recordAttachments } from './attachments';
import { resolveScope } from './scope';

/**
 * A chat message's run input with its attachments: the person's text as shown, and what the model reads — the text,
 * then the attachment note in the same human message. `record` remembers the files on the run once it exists (a
 * repeated idempotency key finds the same run: recording again changes nothing).
 */
export async function chatMessageInput(ownerId: string, conversationId: string, text: string, attachments: readonly string[] | undefined) {
  const files = attachments?.length ? await attachedFiles(await resolveScope(ownerId, { kind: 'conversation', id: conversationId }), attachments) : [];
  const note = attachmentNote(files);
  return {
    input: note ? { text, messageContent: `${text}\n\n${note}` } : { text },
    record: async (runId: string) => {
      if (files.length) await writeTx((tx) => recordAttachments(tx, runId, files));
    },
  };
}
