import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';

/**
 * Skills (ADR 061): an account's instruction packs. The same schemas check the app's form, the JSON API and a
 * SKILL.md's front matter, so a pack the form accepts is one an import accepts, and the reverse.
 */

const LINE_BREAK = /[\r\n\u2028\u2029]/;

/** A skill's name: what the prompt lists and read_skill names; one line, unique per account regardless of case. */
export const skillNameSchema = boundedText({ ...LIMITS.skills.name, minChars: 1 }).refine((v) => !LINE_BREAK.test(v), 'Must be one line').refine((v) => v.trim() === v, 'Must not start or end with spaces');

/** When to use the skill, in the owner's words: listed in the prompt beside the name. */
export const skillDescriptionSchema = boundedText({ ...LIMITS.skills.description, minChars: 1 });

/** The instructions read_skill gives on demand (SKILL.md after its front matter). */
export const skillBodySchema = boundedText(LIMITS.skills.body);

export const skillCreateSchema = z.strictObject({
  name: skillNameSchema,
  description: skillDescriptionSchema,
  body: skillBodySchema,
});
export type SkillCreate = z.infer<typeof skillCreateSchema>;

export const skillPatchSchema = z
  .strictObject({
    name: skillNameSchema.optional(),
    description: skillDescriptionSchema.optional(),
    body: skillBodySchema.optional(),
  })
  .refine((v) => v.name !== undefined || v.description !== undefined || v.body !== undefined, 'Give at least one of name, description, body');
export type SkillPatch = z.infer<typeof skillPatchSchema>;

/** An agent's skills: ids of the owner's skills (checked against the owner by the server), no repeats. */
export const agentSkillsSchema = z
  .array(z.string().min(1).max(100), { error: 'Must be a list of skill ids' })
  .max(LIMITS.skills.perAgent, `At most ${LIMITS.skills.perAgent} skills`)
  .refine((ids) => new Set(ids).size === ids.length, 'Lists a skill twice');
