import 'server-only';
import path from 'node:path';
import { z } from 'zod';
import { limitEnvProblems } from '@/lib/env-limits';
import { httpUrl, setting, settingProblem, settingReader, wholeNumber, type EnvProblem } from '@/lib/env-setting';
import { parseAllowedRanges } from '@/server/egress/address-rule';

/**
 * The server's settings from the environment, in one place (the bounds lib/limits.ts reads are in
 * lib/env-limits.ts). Every module reads them from `env`, never from process.env. Each variable is parsed with zod
 * when its text changes — once in a server, whose environment never changes; tests set variables per file or per
 * test (DATA_DIR, ALLOW_SIGNUP, TRUST_PROXY …) and see them at the next read.
 *
 * Start-up checks every variable first (environmentProblems) and refuses to start, naming each invalid one and
 * what it allows. Read later, an invalid value (only a script or a test can get there) gets the safe answer where
 * there is one — closed sign-up, no trusted proxy, the default — and throws where a fallback would do harm: a short
 * AUTH_SECRET, or a model endpoint that would send the key elsewhere.
 * README.md "Configuration" lists them all.
 */

/** Shorter than this is not a secret worth signing sessions with (we generate 43 characters). */
export const MIN_SECRET_CHARS = 32;

export class EnvError extends Error {
  constructor(readonly problem: EnvProblem) {
    super(`${problem.variable} is not allowed: ${problem.allowed}.`);
    this.name = 'EnvError';
  }
}

const reject = (problem: EnvProblem): never => {
  throw new EnvError(problem);
};

const SWITCH: Record<string, boolean> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };

const SETTINGS = {
  DATA_DIR: setting('DATA_DIR', 'a directory path', z.string().transform((dir) => path.resolve(dir))),
  MIGRATIONS_DIR: setting('MIGRATIONS_DIR', 'a directory path', z.string().transform((dir) => path.resolve(dir))),
  DATABASE_URL: setting(
    'DATABASE_URL',
    'a postgres:// or postgresql:// URL (unset: the embedded SQLite database in DATA_DIR)',
    z
      .string()
      .trim()
      .refine((url) => /^postgres(ql)?:\/\/./.test(url)),
    { secret: true },
  ),
  AUTH_SECRET: setting('AUTH_SECRET', `a secret of at least ${MIN_SECRET_CHARS} characters`, z.string().min(MIN_SECRET_CHARS), { secret: true }),
  AUTH_URL: setting('AUTH_URL', "the app's public http(s) URL", httpUrl()),
  NEXTAUTH_URL: setting('NEXTAUTH_URL', "the app's public http(s) URL", httpUrl()),
  ALLOW_SIGNUP: setting(
    'ALLOW_SIGNUP',
    'true, false, 1, 0, yes, no, on or off',
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((word) => word in SWITCH)
      .transform((word) => SWITCH[word]!),
  ),
  TRUST_PROXY: setting('TRUST_PROXY', 'a whole number of reverse-proxy hops, 0 to 99', wholeNumber(0, 99)),
  SCRYPT_LOG_N: setting('SCRYPT_LOG_N', 'a whole number 10 to 20 (scrypt cost N = 2^value; tests only)', wholeNumber(10, 20)),
  OPENAI_API_KEY: setting('OPENAI_API_KEY', 'an API key', z.string().trim(), { secret: true }),
  OPENAI_BASE_URL: setting('OPENAI_BASE_URL', 'an http(s) URL', httpUrl()),
  ANTHROPIC_API_KEY: setting('ANTHROPIC_API_KEY', 'an API key', z.string().trim(), { secret: true }),
  ANTHROPIC_BASE_URL: setting('ANTHROPIC_BASE_URL', 'an http(s) URL', httpUrl()),
  OLLAMA_BASE_URL: setting('OLLAMA_BASE_URL', 'an http(s) URL', httpUrl()),
  // Encrypts the keys of providers added on the Admin page (server/providers/secret-box.ts, ADR 043).
  ENSEMBLE_SECRET_KEY: setting('ENSEMBLE_SECRET_KEY', `a secret of at least ${MIN_SECRET_CHARS} characters`, z.string().min(MIN_SECRET_CHARS), { secret: true }),
  ENSEMBLE_SECRET_KEY_PREVIOUS: setting('ENSEMBLE_SECRET_KEY_PREVIOUS', `a secret of at least ${MIN_SECRET_CHARS} characters`, z.string().min(MIN_SECRET_CHARS), {
    secret: true,
  }),
  MODEL_MAX_ATTEMPTS: setting('MODEL_MAX_ATTEMPTS', 'a whole number of attempts per model call, 1 to 10', wholeNumber(1, 10)),
  // Address ranges an account's outbound calls (MCP servers, web fetch) may reach although they are not public
  // (server/egress, ADR 054, 060). MCP_EGRESS_ALLOW is the older name, still read, and adds to it.
  EGRESS_ALLOW: setting('EGRESS_ALLOW', 'a comma-separated list of address ranges in CIDR form, like 127.0.0.1/32,::1/128', cidrList()),
  MCP_EGRESS_ALLOW: setting('MCP_EGRESS_ALLOW', 'a comma-separated list of address ranges in CIDR form, like 127.0.0.1/32,::1/128', cidrList()),
  // The web_search tool's provider (server/web, ADR 060); unset, the web group has no web_search.
  WEB_SEARCH_PROVIDER: setting('WEB_SEARCH_PROVIDER', 'searxng, brave or tavily', z.enum(['searxng', 'brave', 'tavily'])),
  WEB_SEARCH_URL: setting('WEB_SEARCH_URL', "an http(s) URL: the SearXNG instance, or another provider's API endpoint", httpUrl()),
  WEB_SEARCH_API_KEY: setting('WEB_SEARCH_API_KEY', 'an API key', z.string().trim(), { secret: true }),
};

function cidrList() {
  return z
    .string()
    .trim()
    .refine((list) => {
      try {
        parseAllowedRanges(list);
        return true;
      } catch {
        return false;
      }
    });
}

export type WebSearchProvider = 'searxng' | 'brave' | 'tavily';
export type WebSearchSetting = { provider: WebSearchProvider; url: string; apiKey: string | undefined };

/** Where each provider answers when WEB_SEARCH_URL does not say (SearXNG has no public default: it is self-hosted). */
const SEARCH_ENDPOINTS: Record<WebSearchProvider, string | undefined> = {
  searxng: undefined,
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
};

/** The search setting as a whole: a provider without the endpoint or key it needs is a problem start-up names. */
function webSearchProblem(): EnvProblem | undefined {
  const provider = read.webSearchProvider();
  if (!provider) return undefined;
  if (!read.webSearchUrl() && !SEARCH_ENDPOINTS[provider]) {
    return { variable: 'WEB_SEARCH_URL', value: '', allowed: `the ${provider} endpoint (an http(s) URL), required when WEB_SEARCH_PROVIDER=${provider}` };
  }
  if (provider !== 'searxng' && !read.webSearchApiKey()) {
    return { variable: 'WEB_SEARCH_API_KEY', value: '', allowed: `an API key, required when WEB_SEARCH_PROVIDER=${provider}`, secret: true };
  }
  return undefined;
}

const none = () => undefined;

const read = {
  dataDir: settingReader(SETTINGS.DATA_DIR, () => path.join(process.cwd(), 'data')),
  migrationsDir: settingReader(SETTINGS.MIGRATIONS_DIR, () => path.join(process.cwd(), 'drizzle')),
  databaseUrl: settingReader<string | undefined>(SETTINGS.DATABASE_URL, none, reject),
  authSecret: settingReader<string | undefined>(SETTINGS.AUTH_SECRET, none, reject),
  authUrl: settingReader<string | undefined>(SETTINGS.AUTH_URL, none),
  nextAuthUrl: settingReader<string | undefined>(SETTINGS.NEXTAUTH_URL, none),
  allowSignup: settingReader(SETTINGS.ALLOW_SIGNUP, () => false),
  trustProxy: settingReader(
    SETTINGS.TRUST_PROXY,
    () => 0,
    (problem) => {
      console.warn(`[ensemble] TRUST_PROXY=${JSON.stringify(problem.value)} is not a number of proxy hops; trusting none (0).`);
      return 0;
    },
  ),
  scryptLogN: settingReader(SETTINGS.SCRYPT_LOG_N, () => 15),
  openaiApiKey: settingReader<string | undefined>(SETTINGS.OPENAI_API_KEY, none),
  openaiBaseUrl: settingReader<string | undefined>(SETTINGS.OPENAI_BASE_URL, none, reject),
  anthropicApiKey: settingReader<string | undefined>(SETTINGS.ANTHROPIC_API_KEY, none),
  anthropicBaseUrl: settingReader<string | undefined>(SETTINGS.ANTHROPIC_BASE_URL, none, reject),
  ollamaBaseUrl: settingReader<string | undefined>(SETTINGS.OLLAMA_BASE_URL, none, reject),
  secretKey: settingReader<string | undefined>(SETTINGS.ENSEMBLE_SECRET_KEY, none, reject),
  previousSecretKey: settingReader<string | undefined>(SETTINGS.ENSEMBLE_SECRET_KEY_PREVIOUS, none, reject),
  modelMaxAttempts: settingReader(SETTINGS.MODEL_MAX_ATTEMPTS, () => 3),
  egressAllow: settingReader<string | undefined>(SETTINGS.EGRESS_ALLOW, none, reject),
  mcpEgressAllow: settingReader<string | undefined>(SETTINGS.MCP_EGRESS_ALLOW, none, reject),
  webSearchProvider: settingReader<WebSearchProvider | undefined>(SETTINGS.WEB_SEARCH_PROVIDER, none),
  webSearchUrl: settingReader<string | undefined>(SETTINGS.WEB_SEARCH_URL, none, reject),
  webSearchApiKey: settingReader<string | undefined>(SETTINGS.WEB_SEARCH_API_KEY, none),
};

/** The settings, read when asked (see the module comment). */
export const env = {
  /** DATA_DIR, absolute; ./data by default. */
  get dataDir(): string {
    return read.dataDir();
  },
  /** MIGRATIONS_DIR, absolute; ./drizzle by default. */
  get migrationsDir(): string {
    return read.migrationsDir();
  },
  /** DATABASE_URL: a Postgres database for everything (docs/decisions/033), or undefined for embedded SQLite. */
  get databaseUrl(): string | undefined {
    return read.databaseUrl();
  },
  /** AUTH_SECRET, or undefined (a secret is generated and kept in the data directory). */
  get authSecret(): string | undefined {
    return read.authSecret();
  },
  /** AUTH_URL (or next-auth's older NEXTAUTH_URL): the app's public address, when the operator set one. */
  get authUrl(): string | undefined {
    return read.authUrl() ?? read.nextAuthUrl();
  },
  /** ALLOW_SIGNUP: anyone may sign up after the first account. */
  get allowSignup(): boolean {
    return read.allowSignup();
  },
  /** TRUST_PROXY: reverse-proxy hops whose X-Forwarded-For entries are believed. */
  get trustProxy(): number {
    return read.trustProxy();
  },
  /** SCRYPT_LOG_N: log2 of scrypt's N for new password hashes (15; tests lower it). */
  get scryptLogN(): number {
    return read.scryptLogN();
  },
  get openaiApiKey(): string | undefined {
    return read.openaiApiKey();
  },
  get openaiBaseUrl(): string | undefined {
    return read.openaiBaseUrl();
  },
  get anthropicApiKey(): string | undefined {
    return read.anthropicApiKey();
  },
  get anthropicBaseUrl(): string | undefined {
    return read.anthropicBaseUrl();
  },
  get ollamaBaseUrl(): string | undefined {
    return read.ollamaBaseUrl();
  },
  /** ENSEMBLE_SECRET_KEY: encrypts managed providers' API keys; unset, the session secret does (ADR 043). */
  get secretKey(): string | undefined {
    return read.secretKey();
  },
  /** ENSEMBLE_SECRET_KEY_PREVIOUS: the secret before a rotation, still accepted for decrypting (ADR 043). */
  get previousSecretKey(): string | undefined {
    return read.previousSecretKey();
  },
  /** MODEL_MAX_ATTEMPTS: tries of one model call when its failures are transient (3; server/agents/model-call). */
  get modelMaxAttempts(): number {
    return read.modelMaxAttempts();
  },
  /**
   * EGRESS_ALLOW and MCP_EGRESS_ALLOW together: ranges (CIDR) an account's outbound calls — MCP servers and web
   * fetch — may reach though not public; none by default (ADR 054, 060).
   */
  get egressAllow(): string | undefined {
    const lists = [read.egressAllow(), read.mcpEgressAllow()].filter((list): list is string => Boolean(list));
    return lists.length ? lists.join(',') : undefined;
  },
  /** The web_search provider, its endpoint and key; undefined when none is configured, or the setting is incomplete. */
  get webSearch(): WebSearchSetting | undefined {
    const provider = read.webSearchProvider();
    if (!provider || webSearchProblem()) return undefined;
    return { provider, url: read.webSearchUrl() ?? SEARCH_ENDPOINTS[provider]!, apiKey: read.webSearchApiKey() };
  },
};

/** Every variable, server and limits, whose value is not allowed: start-up refuses to start when there is one. */
export function environmentProblems(): EnvProblem[] {
  const server = Object.values(SETTINGS).map((s) => settingProblem(s));
  const search = server.some((p) => p?.variable.startsWith('WEB_SEARCH_')) ? undefined : webSearchProblem();
  return [...server.filter((p): p is EnvProblem => p !== undefined), ...(search ? [search] : []), ...limitEnvProblems()];
}
