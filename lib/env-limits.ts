import { parseSetting, rawEnv, setting, settingProblem, wholeNumber, type EnvProblem, type Setting } from './env-setting';

/**
 * The operator overrides of bounds in lib/limits.ts, each with what it allows; lib/limits.ts keeps the defaults.
 * Browser-safe: lib/limits.ts is imported by forms too, where nothing is set and every default applies.
 * Start-up (server/env.ts environmentProblems) refuses an invalid value, naming the variable; read elsewhere
 * (a script, a test) an invalid value keeps the default, as these were always read.
 */
const LIMIT_SETTINGS = {
  SIGNUP_LIMIT_PER_HOUR: setting('SIGNUP_LIMIT_PER_HOUR', 'a whole number of sign-ups, 1 or more', wholeNumber(1)),
  AGENT_LIMIT_PER_ACCOUNT: setting('AGENT_LIMIT_PER_ACCOUNT', 'a whole number of agents, 1 or more', wholeNumber(1)),
  CONVERSATION_LIMIT_PER_ACCOUNT: setting('CONVERSATION_LIMIT_PER_ACCOUNT', 'a whole number of conversations, 1 or more', wholeNumber(1)),
  SCHEDULER_SHARED_GRACE_MS: setting('SCHEDULER_SHARED_GRACE_MS', 'a whole number of milliseconds, 1 or more', wholeNumber(1)),
  // 120: an agent's own time limit can't exceed it either (LIMITS.run.timeLimitMinutes.max).
  RUN_TIME_LIMIT_MINUTES: setting('RUN_TIME_LIMIT_MINUTES', 'a whole number of minutes, 1 to 120', wholeNumber(1, 120)),
  RUNS_IN_FLIGHT_PER_ACCOUNT: setting('RUNS_IN_FLIGHT_PER_ACCOUNT', 'a whole number of runs, 1 or more', wholeNumber(1)),
  // The same range an agent's own threshold must keep (LIMITS.compaction.atTokens).
  COMPACT_AT_TOKENS: setting('COMPACT_AT_TOKENS', 'a whole number of tokens, 1000 to 1000000', wholeNumber(1_000, 1_000_000)),
  DELEGATION_MAX_CONCURRENT: setting('DELEGATION_MAX_CONCURRENT', 'a whole number of children, 1 to 64', wholeNumber(1, 64)),
  RUN_TOKEN_BUDGET: setting('RUN_TOKEN_BUDGET', 'a whole number of tokens, 1000 or more', wholeNumber(1_000)),
  DAILY_TOKEN_CAP_PER_ACCOUNT: setting('DAILY_TOKEN_CAP_PER_ACCOUNT', 'a whole number of tokens, 1 or more', wholeNumber(1)),
  // A provider's own caps (Admin → Providers) take precedence; these apply to the rest (the environment's providers too).
  PROVIDER_MAX_CONCURRENT: setting('PROVIDER_MAX_CONCURRENT', 'a whole number of model calls, 1 to 1000', wholeNumber(1, 1_000)),
  PROVIDER_REQUESTS_PER_MINUTE: setting('PROVIDER_REQUESTS_PER_MINUTE', 'a whole number of model calls per minute, 1 to 100000', wholeNumber(1, 100_000)),
  // Deferred MCP tools (LIMITS.deferredTools): 0 tools defers every MCP tool.
  MCP_DEFER_TOOLS_OVER: setting('MCP_DEFER_TOOLS_OVER', 'a whole number of tools, 0 to 1000', wholeNumber(0, 1_000)),
  MCP_DEFER_SCHEMA_TOKENS: setting('MCP_DEFER_SCHEMA_TOKENS', 'a whole number of tokens, 0 to 1000000', wholeNumber(0, 1_000_000)),
  // Files (LIMITS.files): one file's bytes, and all of an account's versions together.
  FILE_MAX_BYTES: setting('FILE_MAX_BYTES', 'a whole number of bytes, 1 or more', wholeNumber(1)),
  FILE_QUOTA_BYTES_PER_ACCOUNT: setting('FILE_QUOTA_BYTES_PER_ACCOUNT', 'a whole number of bytes, 1 or more', wholeNumber(1)),
} satisfies Record<string, Setting<number>>;

export type LimitVariable = keyof typeof LIMIT_SETTINGS;

export const LIMIT_VARIABLES = Object.keys(LIMIT_SETTINGS) as LimitVariable[];

/** The operator's value for a bound, or `fallback` when unset (or invalid where start-up's check didn't run). */
export function limitFromEnv(name: LimitVariable, fallback: number): number {
  const parsed = parseSetting(LIMIT_SETTINGS[name], rawEnv(name));
  return parsed.ok ? (parsed.value ?? fallback) : fallback;
}

/** Every limit variable whose value is not allowed. */
export const limitEnvProblems = (): EnvProblem[] =>
  LIMIT_VARIABLES.map((name) => settingProblem(LIMIT_SETTINGS[name])).filter((p): p is EnvProblem => p !== undefined);
