/**
 * One environment variable as the app reads it: its name, the schema its text must pass, and what is allowed
 * (said in the refusal). Unset and blank mean the same (an empty `FOO=` in a unit file means "not set"), so a
 * schema only ever sees non-blank text. Browser-safe: in the browser bundle nothing is set and defaults apply.
 * The settings themselves live in server/env.ts (server) and lib/env-limits.ts (the bounds lib/limits.ts reads).
 *
 * No zod import here: lib/limits.ts loads this module into every page of the browser, where nothing is set, and
 * zod would cost each page ~30 kB gzip for nothing. A setting's schema is anything with zod's `safeParse` shape:
 * server/env.ts passes zod schemas; the two parsers below (the only ones the browser loads) are plain.
 */
export type SettingSchema<T> = { safeParse(text: string): { success: true; data: T } | { success: false } };

export type Setting<T> = { name: string; allowed: string; schema: SettingSchema<T>; secret?: boolean };

/** `secret`: the value is never repeated in a refusal (it goes to the log), only its length. */
export const setting = <T>(name: string, allowed: string, schema: SettingSchema<T>, { secret = false } = {}): Setting<T> => ({
  name,
  allowed,
  schema,
  secret,
});

/** A variable whose value its schema refused; a secret's value is replaced by its length. */
export type EnvProblem = { variable: string; value: string; allowed: string; secret?: true };

export const describeEnvProblem = (problem: EnvProblem) =>
  `${problem.variable}=${problem.secret ? problem.value : JSON.stringify(problem.value)} is not allowed: ${problem.allowed}.`;

/** The variable's text, or undefined when unset or blank. */
export function rawEnv(name: string): string | undefined {
  const raw = typeof process === 'undefined' ? undefined : process.env?.[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

export type Parsed<T> = { ok: true; value: T | undefined } | { ok: false; problem: EnvProblem };

/** Parse one raw value: undefined when unset, the schema's output when it passes, a problem when it doesn't. */
export function parseSetting<T>(s: Setting<T>, raw: string | undefined): Parsed<T> {
  if (raw === undefined) return { ok: true, value: undefined };
  const result = s.schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const problem: EnvProblem = s.secret
    ? { variable: s.name, value: `(hidden, ${raw.length} characters)`, allowed: s.allowed, secret: true }
    : { variable: s.name, value: raw, allowed: s.allowed };
  return { ok: false, problem };
}

/** The problem with a variable's current value, if it has one (start-up collects these and refuses to start). */
export function settingProblem(s: Setting<unknown>): EnvProblem | undefined {
  const parsed = parseSetting(s, rawEnv(s.name));
  return parsed.ok ? undefined : parsed.problem;
}

/**
 * A reader for one variable, parsed when its text changes (tests and scripts set variables after modules load;
 * a server's environment never changes, so it parses once). An invalid value is decided by `onInvalid`: fall back
 * to the default, or throw. Start-up has refused invalid values already, so in a server neither happens.
 */
export function settingReader<T>(s: Setting<T>, fallback: () => T, onInvalid: (problem: EnvProblem) => T = fallback): () => T {
  let last: { raw: string | undefined; value: T } | undefined;
  return () => {
    const raw = rawEnv(s.name);
    if (last && last.raw === raw) return last.value;
    const parsed = parseSetting(s, raw);
    const value = !parsed.ok ? onInvalid(parsed.problem) : parsed.value === undefined ? fallback() : parsed.value;
    last = { raw, value };
    return value;
  };
}

const parser = <T>(parse: (text: string) => T | undefined): SettingSchema<T> => ({
  safeParse(text) {
    const data = parse(text);
    return data === undefined ? { success: false } : { success: true, data };
  },
});

/** Text that must be a whole number in [min, max] (no sign, no decimals, no exponent; surrounding blanks ignored). */
export const wholeNumber = (min: number, max: number = Number.MAX_SAFE_INTEGER) =>
  parser((text) => {
    const trimmed = text.trim();
    if (!/^\d+$/.test(trimmed)) return undefined;
    const value = Number(trimmed);
    return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
  });

/** Text that must be an absolute http(s) URL; kept as written (trimmed). */
export const httpUrl = () =>
  parser((text) => {
    const trimmed = text.trim();
    if (!URL.canParse(trimmed)) return undefined;
    const { protocol } = new URL(trimmed);
    return protocol === 'http:' || protocol === 'https:' ? trimmed : undefined;
  });
