import { z } from 'zod';
import { LIMITS } from '@/lib/limits';

const { page } = LIMITS.runEvents;

/** A whole number written in decimal digits (query values arrive as text; "1e2", "-0" and "" are refused). */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'Must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `Must be at least ${min}`).max(max, `Must be at most ${max}`));

/** Query of GET /api/v1/runs/:id/events: `after` (a seq, default 0) and `limit` (1..200, default 100). */
export const runEventsQuerySchema = z
  .object({
    after: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional(),
    limit: wholeNumber(page.min, page.max).optional(),
  })
  .strict()
  .transform((q) => ({ after: q.after ?? 0, limit: q.limit ?? page.default }));
