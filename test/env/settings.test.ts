import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeEnvProblem } from '@/lib/env-setting';
import { LIMIT_VARIABLES, limitEnvProblems, limitFromEnv } from '@/lib/env-limits';
import { LIMITS } from '@/lib/limits';
import { createChatModel, ModelConfigurationError } from '@/server/agents/providers';
import { env, environmentProblems, MIN_SECRET_CHARS } from '@/server/env';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** The variables start-up would refuse now. */
const refused = () => environmentProblems().map((p) => p.variable);

/** Set one variable and say whether start-up accepts it. */
function accepts(name: string, value: string): boolean {
  vi.stubEnv(name, value);
  const problems = environmentProblems().filter((p) => p.variable === name);
  vi.unstubAllEnvs();
  return problems.length === 0;
}

describe('start-up check (environmentProblems)', () => {
  it('accepts the test environment as it is (DATA_DIR, MIGRATIONS_DIR, SCRYPT_LOG_N, AUTH_SECRET set)', () => {
    expect(environmentProblems()).toEqual([]);
  });

  it('names the variable, the value and what is allowed', () => {
    vi.stubEnv('TRUST_PROXY', 'true');
    const [problem] = environmentProblems();
    expect(problem).toEqual({ variable: 'TRUST_PROXY', value: 'true', allowed: 'a whole number of reverse-proxy hops, 0 to 99' });
    expect(describeEnvProblem(problem!)).toBe('TRUST_PROXY="true" is not allowed: a whole number of reverse-proxy hops, 0 to 99.');
  });

  it('never repeats a secret in the refusal, only its length', () => {
    vi.stubEnv('AUTH_SECRET', 'hunter2-hunter2');
    const [problem] = environmentProblems();
    expect(describeEnvProblem(problem!)).toBe(
      `AUTH_SECRET=(hidden, 15 characters) is not allowed: a secret of at least ${MIN_SECRET_CHARS} characters.`,
    );
    expect(JSON.stringify(problem)).not.toContain('hunter2');
  });

  it('reports every invalid variable at once, server and limits', () => {
    vi.stubEnv('ALLOW_SIGNUP', 'maybe');
    vi.stubEnv('AGENT_LIMIT_PER_ACCOUNT', '-3');
    vi.stubEnv('OLLAMA_BASE_URL', 'localhost:11434');
    expect(refused().sort()).toEqual(['AGENT_LIMIT_PER_ACCOUNT', 'ALLOW_SIGNUP', 'OLLAMA_BASE_URL']);
  });

  it('treats unset and blank the same: nothing to refuse', () => {
    for (const name of ['TRUST_PROXY', 'ALLOW_SIGNUP', 'AUTH_SECRET', 'AUTH_URL', 'OPENAI_BASE_URL', ...LIMIT_VARIABLES]) vi.stubEnv(name, '  ');
    expect(environmentProblems()).toEqual([]);
  });

  it.each([
    // [variable, at the limit (accepted), one past it (refused)]
    ['TRUST_PROXY', '0', '-1'],
    ['TRUST_PROXY', '99', '100'],
    ['SCRYPT_LOG_N', '10', '9'],
    ['SCRYPT_LOG_N', '20', '21'],
    ['AUTH_SECRET', 'x'.repeat(MIN_SECRET_CHARS), 'x'.repeat(MIN_SECRET_CHARS - 1)],
    ['RUN_TIME_LIMIT_MINUTES', '120', '121'],
    ['RUN_TIME_LIMIT_MINUTES', '1', '0'],
    ['COMPACT_AT_TOKENS', '1000', '999'],
    ['COMPACT_AT_TOKENS', '1000000', '1000001'],
    ['AGENT_LIMIT_PER_ACCOUNT', '1', '0'],
    ['SIGNUP_LIMIT_PER_HOUR', '1', '0'],
    ['SCHEDULER_SHARED_GRACE_MS', '1', '0'],
    ['RUNS_IN_FLIGHT_PER_ACCOUNT', '1', '0'],
    ['CONVERSATION_LIMIT_PER_ACCOUNT', '1', '0'],
    ['MODEL_MAX_ATTEMPTS', '1', '0'],
    ['MODEL_MAX_ATTEMPTS', '10', '11'],
  ])('%s accepts %j and refuses %j', (name, atLimit, onePast) => {
    expect(accepts(name, atLimit)).toBe(true);
    expect(accepts(name, onePast)).toBe(false);
  });

  it.each(['1.5', '1e3', '0x10', '12abc', '+4'])('refuses %j for a whole-number variable', (value) => {
    expect(accepts('RUNS_IN_FLIGHT_PER_ACCOUNT', value)).toBe(false);
    expect(accepts('TRUST_PROXY', value)).toBe(false);
  });

  it.each(['true', 'FALSE', ' on ', 'off', '1', '0', 'yes', 'no'])('ALLOW_SIGNUP accepts %j', (value) => {
    expect(accepts('ALLOW_SIGNUP', value)).toBe(true);
  });

  it.each(['ftp://example.test', 'example.test', 'https//x', 'not a url'])('AUTH_URL and the model endpoints refuse %j', (value) => {
    for (const name of ['AUTH_URL', 'NEXTAUTH_URL', 'OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OLLAMA_BASE_URL']) expect(accepts(name, value)).toBe(false);
  });
});

describe('reading a setting', () => {
  it('parses again when the text changes (a test setting DATA_DIR, a stub per test)', () => {
    vi.stubEnv('DATA_DIR', 'relative/dir');
    expect(env.dataDir).toBe(path.resolve('relative/dir'));
    vi.stubEnv('DATA_DIR', '');
    expect(env.dataDir).toBe(path.join(process.cwd(), 'data'));
    vi.stubEnv('TRUST_PROXY', ' 2 ');
    expect(env.trustProxy).toBe(2);
    vi.stubEnv('TRUST_PROXY', '3');
    expect(env.trustProxy).toBe(3);
  });

  it('keeps the safe answer for a value start-up would refuse: closed sign-up, no proxy trusted (with one warning)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubEnv('ALLOW_SIGNUP', 'maybe');
    expect(env.allowSignup).toBe(false);
    vi.stubEnv('TRUST_PROXY', 'yes');
    expect(env.trustProxy).toBe(0);
    expect(env.trustProxy).toBe(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('TRUST_PROXY="yes"');
  });

  it('throws, naming the variable, for a session secret that is too short (never signs with it, never swaps it)', () => {
    vi.stubEnv('AUTH_SECRET', 'short');
    expect(() => env.authSecret).toThrow(`AUTH_SECRET is not allowed: a secret of at least ${MIN_SECRET_CHARS} characters.`);
  });

  it('AUTH_URL wins over NEXTAUTH_URL; a malformed one adds no host', () => {
    vi.stubEnv('NEXTAUTH_URL', 'https://old.example/');
    expect(env.authUrl).toBe('https://old.example/');
    vi.stubEnv('AUTH_URL', ' https://app.example/ ');
    expect(env.authUrl).toBe('https://app.example/');
    vi.stubEnv('NEXTAUTH_URL', '');
    vi.stubEnv('AUTH_URL', 'app.example');
    expect(env.authUrl).toBeUndefined();
  });

  it('a malformed model endpoint fails the run that needs it, naming the variable (the key never goes elsewhere)', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    vi.stubEnv('OPENAI_BASE_URL', 'localhost:8080/v1');
    const failure = createChatModel({ name: 'A', model: 'openai:gpt-4.1-mini' });
    await expect(failure).rejects.toBeInstanceOf(ModelConfigurationError);
    await expect(failure).rejects.toThrow('Model openai:gpt-4.1-mini is not configured: OPENAI_BASE_URL is not allowed: an http(s) URL.');
    vi.stubEnv('OLLAMA_BASE_URL', 'ollama:11434');
    await expect(createChatModel({ name: 'A', model: 'ollama:llama3.2' })).rejects.toThrow(/OLLAMA_BASE_URL is not allowed/);
  });

  it('an API key is read when the run starts: trimmed, blank is missing', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '   ');
    await expect(createChatModel({ name: 'A', model: 'anthropic:claude-sonnet-4-5' })).rejects.toThrow(
      'Model anthropic:claude-sonnet-4-5 is not configured: set ANTHROPIC_API_KEY',
    );
    vi.stubEnv('ANTHROPIC_API_KEY', ' sk-ant ');
    expect(env.anthropicApiKey).toBe('sk-ant');
  });
});

describe('limit overrides (lib/env-limits.ts, read by lib/limits.ts)', () => {
  it('an override replaces the default; unset or invalid keeps it (start-up refuses the invalid one)', () => {
    vi.stubEnv('RUNS_IN_FLIGHT_PER_ACCOUNT', '9');
    expect(limitFromEnv('RUNS_IN_FLIGHT_PER_ACCOUNT', 4)).toBe(9);
    vi.stubEnv('RUNS_IN_FLIGHT_PER_ACCOUNT', '');
    expect(limitFromEnv('RUNS_IN_FLIGHT_PER_ACCOUNT', 4)).toBe(4);
    vi.stubEnv('RUN_TIME_LIMIT_MINUTES', '500');
    expect(limitFromEnv('RUN_TIME_LIMIT_MINUTES', 15)).toBe(15);
    expect(limitEnvProblems().map((p) => p.variable)).toEqual(['RUN_TIME_LIMIT_MINUTES']);
  });

  it('LIMITS is built from the overrides when it loads', async () => {
    vi.resetModules();
    vi.stubEnv('COMPACT_AT_TOKENS', '5000');
    vi.stubEnv('SCHEDULER_SHARED_GRACE_MS', '5000');
    try {
      const { LIMITS: fresh } = await import('@/lib/limits');
      expect(fresh.compaction.defaultAtTokens).toBe(5_000);
      expect(fresh.scheduler.sharedGraceMs).toBe(5_000);
    } finally {
      vi.resetModules();
    }
  });

  it('allows the same ranges as the bounds they stand for (an agent’s own time limit and compaction threshold)', () => {
    const { timeLimitMinutes } = LIMITS.run;
    expect([accepts('RUN_TIME_LIMIT_MINUTES', String(timeLimitMinutes.max)), accepts('RUN_TIME_LIMIT_MINUTES', String(timeLimitMinutes.max + 1))]).toEqual([true, false]);
    const { atTokens } = LIMITS.compaction;
    expect([accepts('COMPACT_AT_TOKENS', String(atTokens.min)), accepts('COMPACT_AT_TOKENS', String(atTokens.min - 1))]).toEqual([true, false]);
    expect([accepts('COMPACT_AT_TOKENS', String(atTokens.max)), accepts('COMPACT_AT_TOKENS', String(atTokens.max + 1))]).toEqual([true, false]);
  });
});

describe('DATABASE_URL', () => {
  it('accepts postgres:// and postgresql:// URLs; refuses other schemes, bare hosts and a file path, hiding the value (it may hold a password)', () => {
    expect(accepts('DATABASE_URL', 'postgres://ann:s3cret@db:5432/ensemble')).toBe(true);
    expect(accepts('DATABASE_URL', 'postgresql://db/ensemble')).toBe(true);
    for (const value of ['mysql://db/ensemble', 'db:5432/ensemble', './data/ensemble.db', 'postgres://']) expect(accepts('DATABASE_URL', value)).toBe(false);
    vi.stubEnv('DATABASE_URL', 'mysql://ann:s3cret@db/ensemble');
    const [problem] = environmentProblems();
    expect(problem!.variable).toBe('DATABASE_URL');
    expect(describeEnvProblem(problem!)).not.toContain('s3cret');
  });

  it('unset or blank: the embedded SQLite database', () => {
    vi.stubEnv('DATABASE_URL', ' ');
    expect(environmentProblems()).toEqual([]);
    expect(env.databaseUrl).toBeUndefined();
  });
});
