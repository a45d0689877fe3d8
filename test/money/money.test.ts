import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costNanos, formatDecimal, formatUsd, formatUsdText, MICRO, NANO, nanosToUsd, parseDecimal } from '@/lib/money';
import { moneyBudgetField } from '@/lib/schemas/team-budget';
import { setModelPriceSchema } from '@/lib/schemas/prices';
import { LIMITS } from '@/lib/limits';

describe('decimal dollars ↔ whole units', () => {
  it('parses plain decimal strings exactly, at the scale and not one place past it', () => {
    expect(parseDecimal('0.15', MICRO)).toBe(150_000);
    expect(parseDecimal('12', MICRO)).toBe(12_000_000);
    expect(parseDecimal('0.000001', MICRO)).toBe(1);
    expect(parseDecimal('0.0000001', MICRO)).toBeNull();
    expect(parseDecimal('1000.000000', MICRO)).toBe(1_000_000_000);
    // 0.1 + 0.2 is not 0.3 in binary floating point; as units it is.
    expect(parseDecimal('0.1', NANO)! + parseDecimal('0.2', NANO)!).toBe(parseDecimal('0.3', NANO));
  });

  it('refuses what is not a plain non-negative decimal: signs, exponents, spaces inside, commas, full-width and CJK digits, emoji', () => {
    for (const text of ['-1', '+1', '1e3', '1 000', '1,000', '.5', '5.', '', '０.５', '五', '💵', '0x10', 'NaN', 'Infinity']) {
      expect(parseDecimal(text, MICRO), text).toBeNull();
    }
  });

  it('refuses a value past 2^53 units rather than rounding it', () => {
    expect(parseDecimal('9007199.254740991', NANO)).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseDecimal('9007199.254740992', NANO)).toBeNull();
  });

  it('formats units back with at least two decimal places and no trailing zeros past them', () => {
    expect(formatDecimal(150_000, MICRO)).toBe('0.15');
    expect(formatDecimal(12_000_000, MICRO)).toBe('12.00');
    expect(formatDecimal(1, MICRO)).toBe('0.000001');
    expect(nanosToUsd(0)).toBe('0.00');
    expect(nanosToUsd(3_500_000)).toBe('0.0035');
    expect(() => formatDecimal(-1, NANO)).toThrow(RangeError);
    expect(() => formatDecimal(0.5, NANO)).toThrow(RangeError);
  });

  it('round-trips every whole amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (units) => {
        expect(parseDecimal(formatDecimal(units, NANO), NANO)).toBe(units);
        expect(parseDecimal(formatDecimal(units, MICRO), MICRO)).toBe(units);
      }),
    );
  });
});

describe('costNanos', () => {
  const price = { inputMicrosPerMillion: 2_000_000, outputMicrosPerMillion: 8_000_000 }; // $2 / $8 per million

  it('is tokens × price, exactly: 750 in and 250 out at $2 / $8 per million is $0.0035', () => {
    expect(costNanos({ input: 750, output: 250 }, price)).toBe(3_500_000);
    expect(costNanos({ input: 1_000_000, output: 0 }, price)).toBe(2_000_000_000);
  });

  it('rounds half up to the nearest nano-dollar, once, at the end', () => {
    const cheap = { inputMicrosPerMillion: 1, outputMicrosPerMillion: 1 }; // $0.000001 per million: 1 pico-dollar a token
    expect(costNanos({ input: 499, output: 0 }, cheap)).toBe(0);
    expect(costNanos({ input: 500, output: 0 }, cheap)).toBe(1);
    // Rounded per side this would be 0 + 0; summed first it is 1.
    expect(costNanos({ input: 300, output: 300 }, cheap)).toBe(1);
  });

  it('is unknown (null), never 0, when a price it needs is unknown; a side with no tokens needs no price', () => {
    expect(costNanos({ input: 10, output: 10 }, null)).toBeNull();
    expect(costNanos({ input: 10, output: 10 }, { inputMicrosPerMillion: 1_000, outputMicrosPerMillion: null })).toBeNull();
    expect(costNanos({ input: 10, output: 0 }, { inputMicrosPerMillion: 1_000_000, outputMicrosPerMillion: null })).toBe(10_000);
    expect(costNanos({ input: 0, output: 0 }, null)).toBe(0);
  });

  it('stays exact for big values: the dearest price (LIMITS.prices.max) over billions of tokens, and unknown past 2^53', () => {
    const dearest = parseDecimal(LIMITS.prices.max, MICRO)!;
    const top = { inputMicrosPerMillion: dearest, outputMicrosPerMillion: dearest };
    // 9,007,199,254 tokens at $1,000 per million: $9,007,199.254 — 9,007,199,254,000,000 nano-dollars, under 2^53.
    expect(costNanos({ input: 9_007_199_254, output: 0 }, top)).toBe(9_007_199_254_000_000);
    // One more million tokens goes past what a JS number holds exactly: unknown, not a rounded figure.
    expect(costNanos({ input: 9_008_199_254, output: 0 }, top)).toBeNull();
  });

  it('agrees with a decimal oracle on random token counts and prices (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        (input, output, inMicros, outMicros) => {
          const pico = BigInt(input) * BigInt(inMicros) + BigInt(output) * BigInt(outMicros);
          const floor = pico / 1000n;
          const expected = pico % 1000n >= 500n ? floor + 1n : floor;
          expect(costNanos({ input, output }, { inputMicrosPerMillion: inMicros, outputMicrosPerMillion: outMicros })).toBe(Number(expected));
        },
      ),
    );
  });

  it('refuses counts that are not whole non-negative numbers', () => {
    expect(() => costNanos({ input: -1, output: 0 }, null)).toThrow(RangeError);
    expect(() => costNanos({ input: 1.5, output: 0 }, null)).toThrow(RangeError);
  });
});

describe('formatUsd', () => {
  it('shows small amounts with enough places, unknown as "unknown", and never rounds a real cost down to $0.00', () => {
    expect(formatUsd(null)).toBe('unknown');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(3_500_000)).toBe('$0.0035');
    expect(formatUsd(15_000)).toBe('$0.000015');
    expect(formatUsd(999)).toBe('< $0.000001');
    expect(formatUsd(12_345_000_000)).toBe('$12.35');
    expect(formatUsd(1_000_000 * 1e9)).toBe('$1,000,000.00');
    expect(formatUsdText('0.0035')).toBe('$0.0035');
    expect(formatUsdText(null)).toBe('unknown');
  });
});

describe('the money schemas', () => {
  const price = (v: unknown) => setModelPriceSchema.safeParse({ model: 'scripted', inputPerMillion: v, outputPerMillion: null });
  const fieldError = (r: ReturnType<typeof price>) => (r.success ? undefined : r.error.issues.find((i) => i.path[0] === 'inputPerMillion')?.message);

  it('a price: 0 to $1,000 per million with 6 places, at each limit and one past; empty is unknown', () => {
    expect(price('0')).toMatchObject({ success: true, data: { inputPerMillion: 0 } });
    expect(price('1000')).toMatchObject({ success: true, data: { inputPerMillion: 1_000_000_000 } });
    expect(price('0.000001')).toMatchObject({ success: true, data: { inputPerMillion: 1 } });
    expect(price('')).toMatchObject({ success: true, data: { inputPerMillion: null } });
    expect(price(null)).toMatchObject({ success: true, data: { inputPerMillion: null } });
    expect(fieldError(price('1000.000001'))).toMatch(/from \$0 to \$1,000/);
    expect(fieldError(price('0.0000001'))).toMatch(/at most 6 decimal places/);
  });

  it('a price: refuses numbers (binary floats), negatives, CJK and full-width digits, emoji, each naming the field', () => {
    for (const v of [0.15, -1, '-0.5', '一', '０.１５', '💲1', '1e2', true, {}]) {
      expect(fieldError(price(v)), JSON.stringify(v)).toMatch(/amount in dollars as text/);
    }
  });

  it('a price: the model must be a model string', () => {
    const r = setModelPriceSchema.safeParse({ model: 'not a model', inputPerMillion: '1', outputPerMillion: '1' });
    expect(r.success ? null : r.error.issues.map((i) => i.path.join('.'))).toEqual(['model']);
    const extra = setModelPriceSchema.safeParse({ model: 'scripted', inputPerMillion: '1', outputPerMillion: '1', currency: 'EUR' });
    expect(extra.success).toBe(false);
  });

  it('a money budget: $0.01 to $1,000,000 in cents, at each limit and one past', () => {
    expect(moneyBudgetField.parse('0.01')).toBe(10_000_000);
    expect(moneyBudgetField.parse('1000000')).toBe(1_000_000 * 1e9);
    expect(moneyBudgetField.parse(null)).toBeNull();
    expect(moneyBudgetField.safeParse('0.00').error?.issues[0]?.message).toMatch(/from \$0\.01 to \$1,000,000/);
    expect(moneyBudgetField.safeParse('1000000.01').error?.issues[0]?.message).toMatch(/from \$0\.01 to \$1,000,000/);
    expect(moneyBudgetField.safeParse('1.005').error?.issues[0]?.message).toMatch(/at most 2 decimal places/);
    expect(moneyBudgetField.safeParse(25).success).toBe(false);
  });
});
