import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';

/** The kinds of a public-state entry (the same five the member tools accept). */
export const STATE_ENTRY_KINDS = ['objective', 'plan', 'finding', 'question', 'requirement'] as const;
const kind = z.enum(STATE_ENTRY_KINDS, { error: `Choose one of ${STATE_ENTRY_KINDS.join(', ')}` });
const status = z.enum(['active', 'archived'], { error: 'Must be active or archived' });

export const stateTitle = boundedText({ ...LIMITS.publicState.title, minChars: 1 });
export const stateContent = boundedText(LIMITS.publicState.content);

/** `POST /api/v1/teams/:id/state` and the panel's "Add entry": the same requestId again answers the same entry. */
export const createStateEntrySchema = z
  .object({
    requestId: z.string().trim().min(1, 'Required').max(200),
    kind,
    title: stateTitle,
    content: stateContent.default(''),
  })
  .strict();
export type CreateStateEntryInput = z.input<typeof createStateEntrySchema>;

/**
 * `PATCH /api/v1/teams/:id/state/:entryId` and the panel's edit, archive and restore: `expectedRevision` is the
 * entry revision the person saw; an absent field keeps its current value.
 */
export const updateStateEntrySchema = z
  .object({
    expectedRevision: z.number({ error: 'Must be the entry revision you saw' }).int('Must be a whole number').min(1, 'Must be at least 1').max(Number.MAX_SAFE_INTEGER),
    title: stateTitle.optional(),
    content: stateContent.optional(),
    status: status.optional(),
  })
  .strict()
  .refine((v) => v.title !== undefined || v.content !== undefined || v.status !== undefined, {
    path: ['title'],
    message: 'Send at least one of title, content or status',
  });
export type UpdateStateEntryInput = z.input<typeof updateStateEntrySchema>;
