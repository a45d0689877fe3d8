import { z } from 'zod';
import { LIMITS } from '../limits';
import { MICRO } from '../money';
import { parseModel, MODEL_FORMAT_HINT } from '../models';
import { usdAmount } from './money';

/**
 * A model's prices (ADR 048): US dollars per million input and per million output tokens, as decimal strings;
 * null (or an empty field in the form) is unknown, and a cost that needs an unknown price is unknown, never $0.
 * The same schema checks the Admin page's form and `PUT /api/v1/admin/prices`.
 */

const pricePerMillion = usdAmount({ min: '0', max: LIMITS.prices.max, decimals: LIMITS.prices.decimals, scale: MICRO });

/** A price field: a decimal string, or null / "" for unknown. */
const priceField = z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), pricePerMillion.nullable());

export const modelStringSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .refine((v) => parseModel(v) !== null, MODEL_FORMAT_HINT);

export const setModelPriceSchema = z
  .object({ model: modelStringSchema, inputPerMillion: priceField, outputPerMillion: priceField })
  .strict();
export type SetModelPriceInput = z.input<typeof setModelPriceSchema>;
export type SetModelPriceData = z.output<typeof setModelPriceSchema>;

/** One model's prices as the API and the Admin page show them: dollars per million tokens, null = unknown. */
export type ModelPriceView = { model: string; inputPerMillion: string | null; outputPerMillion: string | null; updatedAt: string };
