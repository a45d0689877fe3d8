import { z } from 'zod';

/**
 * POST /teams/:id/jobs/:jobId/retry: `requestId` makes it idempotent (the same id again answers the same new
 * request); `memberId` sends it to another member instead of the one that failed (absent: the same member).
 */
export const retryJobSchema = z
  .object({
    requestId: z.string().trim().min(1, 'Required').max(200),
    memberId: z.string().min(1).max(100).optional(),
  })
  .strict();
export type RetryJobInput = z.infer<typeof retryJobSchema>;
