import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';

const { maxItems, maxChars } = LIMITS.delegation.acceptanceCriteria;

/**
 * `acceptance_criteria` of `task` and `send_member`: at most maxItems criteria, each 1 to maxChars characters (code
 * points: an emoji or a CJK character counts once). An issue names the item (`acceptance_criteria.3`).
 */
export const acceptanceCriteriaSchema = z
  .array(boundedText({ maxChars, minChars: 1 }))
  .max(maxItems, `At most ${maxItems} acceptance criteria`)
  .describe(`What the result must satisfy: at most ${maxItems} short checks of at most ${maxChars} characters each`);
