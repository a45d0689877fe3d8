import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { wholeNumberParam } from './common';

const { page } = LIMITS.runEvents;
/** The largest event seq a run can have: run_events.seq is a 32-bit integer column in Postgres's checkpoint store. */
const MAX_SEQ = 2_147_483_647;

/** Query of GET /api/v1/runs/:id/events: `after` (a seq, default 0) and `limit` (1..200, default 100). */
export const runEventsQuerySchema = z
  .object({
    after: wholeNumberParam(0, MAX_SEQ).optional(),
    limit: wholeNumberParam(page.min, page.max).optional(),
  })
  .strict()
  .transform((q) => ({ after: q.after ?? 0, limit: q.limit ?? page.default }));
