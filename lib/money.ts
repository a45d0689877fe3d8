/**
 * Money, exactly (ADR 048). Amounts are whole numbers of a fixed unit — prices in micro-dollars per million tokens,
 * costs and budgets in nano-dollars — and travel in the API as decimal strings of US dollars ("0.15"), never as
 * binary floats: a cost is computed with BigInt from whole tokens and whole micro-dollars, and sums are sums of
 * whole numbers. Only display turns them into a float, at the last step (Intl.NumberFormat rounds it anyway).
 * Pure and browser-safe.
 */

/** Decimal places of each unit: micro-dollars (prices), nano-dollars (costs, budgets). */
export const MICRO = 6;
export const NANO = 9;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A plain decimal string of dollars ("12", "0.15", "3.000001") as a whole number of units of 10^-scale dollars, or
 * null when it is not one (signs, exponents, spaces, more than `scale` decimal places, or past 2^53).
 */
export function parseDecimal(text: string, scale: number): number | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > scale) return null;
  const units = BigInt(m[1]!) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0') || '0');
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : null;
}

/** Units of 10^-scale dollars as a decimal string: trailing zeros dropped, at least two decimal places ("0.10"). */
export function formatDecimal(units: number, scale: number): string {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`not a whole non-negative amount: ${units}`);
  const digits = String(units).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '').padEnd(Math.min(2, scale), '0');
  return fraction ? `${whole}.${fraction}` : whole;
}

export const microsToUsd = (micros: number) => formatDecimal(micros, MICRO);
export const nanosToUsd = (nanos: number) => formatDecimal(nanos, NANO);

/** A model's prices per million tokens in micro-dollars; null = unknown. */
export type PriceMicros = { inputMicrosPerMillion: number | null; outputMicrosPerMillion: number | null };

/**
 * What these tokens cost at this price, in nano-dollars, rounded half up (to the nearest nano-dollar): null when
 * a price they need is unknown. tokens × micro-dollars per million = pico-dollars, exactly, in BigInt; one
 * rounding, at the end. A side with no tokens needs no price (a run that read 0 output tokens costs its input).
 */
export function costNanos(tokens: { input: number; output: number }, price: PriceMicros | null | undefined): number | null {
  const sides: Array<[number, number | null | undefined]> = [
    [tokens.input, price?.inputMicrosPerMillion],
    [tokens.output, price?.outputMicrosPerMillion],
  ];
  let pico = 0n;
  for (const [count, micros] of sides) {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`not a token count: ${count}`);
    if (count === 0) continue;
    if (micros == null) return null;
    pico += BigInt(count) * BigInt(micros);
  }
  const nanos = (pico + 500n) / 1000n;
  // Past 2^53 nano-dollars (9 million dollars in one run) the figure would no longer be exact: unknown, not wrong.
  return nanos <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(nanos) : null;
}

const formats = new Map<number, Intl.NumberFormat>();
function usdFormat(maxDecimals: number): Intl.NumberFormat {
  let f = formats.get(maxDecimals);
  if (!f) formats.set(maxDecimals, (f = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: maxDecimals })));
  return f;
}

/**
 * Nano-dollars for a person: "$12.34", "$0.0042", "$0.000015"; small amounts keep enough places to be seen, and
 * an amount under a millionth of a dollar (but not zero) says so rather than showing $0.00. Null (unknown) is
 * "unknown": never $0.
 */
export function formatUsd(nanos: number | null): string {
  if (nanos === null) return 'unknown';
  if (nanos === 0) return usdFormat(2).format(0);
  if (nanos < 1_000) return '< $0.000001';
  const usd = nanos / 1e9;
  return usdFormat(usd >= 1 ? 2 : usd >= 0.01 ? 4 : 6).format(usd);
}

/** A decimal-string amount from the API ("0.0042") for a person, or "unknown" for null (formatUsd's rules). */
export function formatUsdText(usd: string | null): string {
  return formatUsd(usd === null ? null : parseDecimal(usd, NANO));
}
