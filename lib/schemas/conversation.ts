import { z } from 'zod';
import { LIMITS } from '../limits';
import { jsonBytes } from '../text-bounds';
import { boundedText, idSchema } from './common';

/** Client-chosen keys that make a retried request find the same run. */
export const idempotencyKeySchema = z.string().trim().min(1, 'Required').max(200, 'Must be at most 200 characters');

export const createConversationSchema = z.strictObject({
  agentId: idSchema,
});

/** A message to an agent: 1–4,000 characters and at most 8,000 UTF-8 bytes. */
export const messageTextSchema = boundedText({
  minChars: 1,
  maxChars: LIMITS.message.maxChars,
  maxBytes: LIMITS.message.maxBytes,
});

/** Ids of files (of the chat, or the team for a request) sent with a message: distinct, at most LIMITS.files.attachments. */
export const attachmentsSchema = z
  .array(z.string().min(1).max(100), { error: 'A list of file ids' })
  .max(LIMITS.files.attachments, `At most ${LIMITS.files.attachments} files`)
  .refine((ids) => new Set(ids).size === ids.length, 'Each file can be attached once');

export const sendMessageSchema = z.strictObject({
  text: messageTextSchema,
  idempotencyKey: idempotencyKeySchema.optional(),
  attachments: attachmentsSchema.optional(),
});

/** The answer to an approval interrupt; anything but an object is told the shape, naming its fields. */
export const approvalDecisionSchema = z.strictObject(
  {
    approved: z.boolean({ error: 'Must be true or false' }),
    note: boundedText({ maxChars: LIMITS.answer.maxChars, maxBytes: LIMITS.answer.maxBytes }).optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'An approval is an object: { "approved": true or false, "note"?: text }' : undefined) },
);

/** Any JSON value, at most LIMITS.interruptResponse.maxBytes once encoded. */
export const interruptResponseSchema = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'Required' });
    return;
  }
  const bytes = jsonBytes(value);
  const max = LIMITS.interruptResponse.maxBytes;
  if (bytes > max) {
    ctx.addIssue({ code: 'custom', message: `Must be at most ${max.toLocaleString('en-US')} bytes of JSON (now ${bytes.toLocaleString('en-US')})` });
  }
});

export const resumeSchema = z.strictObject({
  value: interruptResponseSchema,
  idempotencyKey: idempotencyKeySchema,
});

export type SendMessageInput = z.infer<typeof sendMessageSchema>;
export type ResumeInput = z.infer<typeof resumeSchema>;
