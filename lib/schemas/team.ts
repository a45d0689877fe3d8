import { z } from 'zod';
import { FEED_FILTER_TEXT, FEED_STATUS_VALUES, type FeedStatusGroup } from '../feed-filter';
import { LIMITS } from '../limits';
import { boundedText, oneOfParam, wholeNumberParam } from './common';
import { attachmentsSchema, interruptResponseSchema } from './conversation';
import { moneyBudgetField, oneBudgetKind, tokenBudgetField } from './team-budget';

const key = z.string().trim().min(1, 'Required').max(200);

export const createTeamSchema = z
  .object({
    requestId: key,
    name: boundedText({ ...LIMITS.team.name, minChars: 1 }),
    goal: boundedText({ ...LIMITS.team.goal, minChars: 1 }),
    agentIds: z
      .array(z.string().min(1).max(100))
      .min(LIMITS.team.minMembers, `Choose at least ${LIMITS.team.minMembers} agents`)
      .max(LIMITS.team.maxMembers, `Choose at most ${LIMITS.team.maxMembers} agents`)
      .refine((ids) => new Set(ids).size === ids.length, 'Each agent can be chosen once'),
    /** Optional budget for the whole team, in tokens or in money (null or absent = none; ADR 048). */
    tokenBudget: tokenBudgetField.optional(),
    moneyBudget: moneyBudgetField.optional(),
  })
  .strict()
  .superRefine(oneBudgetKind);
/** What a client sends (a money budget as a decimal string) and what the server works with (nano-dollars). */
export type CreateTeamInput = z.input<typeof createTeamSchema>;
export type CreateTeamData = z.output<typeof createTeamSchema>;

export const taskText = boundedText({ ...LIMITS.task, minChars: 1 });

export const sendRequestSchema = z
  .object({
    memberIds: z
      .array(z.string().min(1).max(100))
      .min(1, 'Choose at least one member')
      .max(LIMITS.team.maxMembers)
      .refine((ids) => new Set(ids).size === ids.length, 'Each member can be chosen once'),
    text: taskText,
    draftKey: key,
    /** Files of the team's workspace sent with the request: each member's job gets them (ADR 058). */
    attachments: attachmentsSchema.optional(),
  })
  .strict();
export type SendRequestInput = z.infer<typeof sendRequestSchema>;

export const activityQuerySchema = z
  .object({
    revision: wholeNumberParam(0, Number.MAX_SAFE_INTEGER).optional(),
    limit: wholeNumberParam(1, LIMITS.activity.maxLimit).default(LIMITS.activity.defaultLimit),
    offset: wholeNumberParam(0, 1_000_000).default(0),
    details: oneOfParam(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true').default(false),
    /** The jobs changed after this team revision (what a push message announced). */
    since: wholeNumberParam(0, Number.MAX_SAFE_INTEGER).optional(),
    /** Older history for scroll-back: jobs with seq below this, newest first. */
    before: wholeNumberParam(1, Number.MAX_SAFE_INTEGER).optional(),
    /** Feed filter (lib/feed-filter.ts): a member id, a status group, text inside request, result or error. */
    member: z.string().min(1).max(100).optional(),
    status: oneOfParam(FEED_STATUS_VALUES as [FeedStatusGroup, ...FeedStatusGroup[]]).optional(),
    text: boundedText(FEED_FILTER_TEXT).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.since !== undefined && (q.revision !== undefined || q.before !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['since'], message: 'Use since alone, without revision or before' });
    }
    if (q.before !== undefined && q.offset > 0) ctx.addIssue({ code: 'custom', path: ['before'], message: 'Use before or offset, not both' });
  });

/** Answer to a waiting request: `answer` (text) for a clarification, `response` (JSON) for an interrupt. */
export const respondSchema = z
  .object({
    answer: boundedText({ ...LIMITS.answer, minChars: 1 }).optional(),
    response: interruptResponseSchema.optional(),
    answerKey: key,
  })
  .strict()
  .superRefine((v, ctx) => {
    const hasAnswer = v.answer !== undefined;
    const hasResponse = v.response !== undefined;
    if (hasAnswer === hasResponse) {
      ctx.addIssue({ code: 'custom', path: ['answer'], message: 'Send either answer (text) or response (JSON), not both' });
    }
  });
export type RespondInput = z.infer<typeof respondSchema>;

/** `POST /api/v1/conversations/:id/mentions`: queue one request per mentioned team member. */
export const mentionSchema = z
  .object({
    memberIds: z
      .array(z.string().min(1).max(100))
      .min(1, 'Mention at least one member')
      .max(LIMITS.team.maxMembers * 4)
      .refine((ids) => new Set(ids).size === ids.length, 'Each member can be mentioned once'),
    text: taskText,
    messageKey: key,
  })
  .strict();
