import { z } from 'zod';
import { LIMITS } from '../limits';
import { wholeNumberParam } from './common';
import { approvalDecisionSchema, idempotencyKeySchema } from './conversation';

/** `GET /api/v1/inbox?limit=&after=`: a page, oldest first; `after` is the previous page's nextCursor. */
export const inboxQuerySchema = z.strictObject({
  limit: wholeNumberParam(1, LIMITS.inbox.maxLimit).default(LIMITS.inbox.defaultLimit),
  after: z.string().max(200, 'Must be at most 200 characters').optional(),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/** An inbox item's id as the read gives it: `chat:<run id>`, `team:<job id>` or `batch:<item id>`. */
export const inboxItemIdSchema = z
  .string()
  .max(120, 'Must be at most 120 characters')
  .regex(/^(chat|team|batch):[^:\s]+$/, 'Must be an inbox item id');

/** The bulk answer: the same decision for each named approval; `bulkKey` makes a retried bulk the same answers. */
export const bulkAnswerSchema = z.strictObject({
  ids: z
    .array(inboxItemIdSchema)
    .min(1, 'Select at least one approval')
    .max(LIMITS.inbox.maxBulk, `At most ${LIMITS.inbox.maxBulk} approvals at once`)
    .refine((ids) => new Set(ids).size === ids.length, 'Each approval can be named once'),
  decision: approvalDecisionSchema,
  bulkKey: idempotencyKeySchema,
});
export type BulkAnswerInput = z.infer<typeof bulkAnswerSchema>;
