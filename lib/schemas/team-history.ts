import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';

/** Bounds of the filter arguments (the page bounds live in LIMITS.history). */
export const HISTORY_QUERY = { maxChars: 500, maxBytes: 2_000 } as const;
export const HISTORY_CURSOR_MAX_CHARS = 512;

const { minLimit, maxLimit } = LIMITS.history;

/** Blank strings and nulls mean "no filter": models often send them for optional arguments. */
const optionalText = <T extends z.ZodType<string>>(schema: T) =>
  z
    .union([schema, z.null()])
    .optional()
    .transform((v) => (v === null || v === undefined || v === '' ? undefined : v));

const id = z.string().max(100, 'Must be at most 100 characters');
const query = boundedText(HISTORY_QUERY);
const cursor = z.string().max(HISTORY_CURSOR_MAX_CHARS, 'Not a cursor from this listing');

/** Arguments of read_team_history and search_team_results (unknown keys such as team_id are ignored). */
export const historyToolArgs = z.object({
  member_id: optionalText(id).describe('Only records sent or received by this member (id or name)'),
  job_id: optionalText(id).describe('Only records about this request or receipt id'),
  query: optionalText(query).describe('Literal text to find, ignoring case'),
  limit: z
    .union([z.number().int().min(minLimit).max(maxLimit), z.null()])
    .optional()
    .transform((v) => v ?? undefined)
    .describe(`Records per page, ${minLimit}-${maxLimit} (default ${LIMITS.history.defaultLimit})`),
  cursor: optionalText(cursor).describe('next_cursor from the previous page, with the same filters'),
});

export const readResultArgs = z.object({
  job_id: z.string().min(1, 'Required').max(100).describe('The id of a request or receipt in this team'),
});

/** Query parameters of GET /teams/:id/history and /teams/:id/results (snake_case or camelCase). */
export const historyQueryParams = z
  .object({
    member_id: optionalText(id),
    memberId: optionalText(id),
    job_id: optionalText(id),
    jobId: optionalText(id),
    query: optionalText(query),
    limit: z
      .string()
      .regex(/^\d+$/, 'Must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(minLimit, `Must be ${minLimit}-${maxLimit}`).max(maxLimit, `Must be ${minLimit}-${maxLimit}`))
      .optional(),
    cursor: optionalText(cursor),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.member_id && v.memberId && v.member_id !== v.memberId) ctx.addIssue({ code: 'custom', path: ['memberId'], message: 'Give member_id or memberId, not both' });
    if (v.job_id && v.jobId && v.job_id !== v.jobId) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'Give job_id or jobId, not both' });
  })
  .transform((v) => ({ memberId: v.member_id ?? v.memberId, jobId: v.job_id ?? v.jobId, query: v.query, limit: v.limit, cursor: v.cursor }));

export type HistoryFilterInput = { memberId?: string; jobId?: string; query?: string; limit?: number; cursor?: string };
