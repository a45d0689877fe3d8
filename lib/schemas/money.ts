import { z } from 'zod';
import { parseDecimal } from '../money';

/**
 * A US-dollar amount as a plain decimal string ("0.15", "12"), between `min` and `max` with at most `decimals`
 * decimal places, parsed to whole units of 10^-scale dollars (ADR 048). A JSON number is refused: a binary float
 * is what the string form exists to avoid ("0.1" is exact, 0.1 is not).
 */
export function usdAmount({ min, max, decimals, scale }: { min: string; max: string; decimals: number; scale: number }) {
  const lo = parseDecimal(min, scale)!;
  const hi = parseDecimal(max, scale)!;
  const shape = `Enter an amount in dollars as text, e.g. "${min === '0' ? '0.15' : '25.00'}", with at most ${decimals} decimal places`;
  return z.string({ error: shape }).transform((text, ctx) => {
    const trimmed = text.trim();
    const places = /^\d+\.(\d+)$/.exec(trimmed)?.[1]?.length ?? 0;
    const units = places > decimals ? null : parseDecimal(trimmed, scale);
    if (units === null) {
      ctx.addIssue({ code: 'custom', message: shape });
      return z.NEVER;
    }
    if (units < lo || units > hi) {
      ctx.addIssue({ code: 'custom', message: `Must be from $${min} to $${Number(max).toLocaleString('en-US')}` });
      return z.NEVER;
    }
    return units;
  });
}
