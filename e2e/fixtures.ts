/**
 * Playwright fixtures for Ensemble.
 *
 *   import { test, expect } from './fixtures';
 *
 *   test('lists my agents', async ({ page, account, api }) => {
 *     await api.post('/api/v1/agents', { data: { name: 'Helper' } });   // Bearer-token API as the same user
 *     await page.goto('/agents');                                       // already signed in as `account`
 *   });
 *
 * - `account`: a fresh user for this test, created with the user CLI (`npm run user -- create … --token`)
 *   against the server's data directory, then signed in through next-auth's own endpoints (GET /api/auth/csrf,
 *   POST /api/auth/callback/credentials) — no login form is clicked. Each test gets its own user, so tests can
 *   sign out, rename or delete freely without disturbing each other.
 * - `page` / `context`: signed in as `account` (its cookies are the context's storageState).
 * - `api`: an APIRequestContext that sends `Authorization: Bearer <account.token>` to the same server.
 * - `accounts.create(label)`: more users when a test needs two owners (e.g. "another user's id answers 404").
 *   `accounts.signIn(account)` returns a storageState for a browser.newContext() as that user.
 *
 * A test about signing in or out with the form itself, or about signed-out pages, opts out of the session:
 *
 *   test.use({ storageState: { cookies: [], origins: [] } });
 *
 * and then no account is created unless the test asks for one.
 */
import { test as base, expect, request as playwrightRequest, type APIRequestContext } from '@playwright/test';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { BASE_URL, ROOT_DIR, SERVER_ENV } from './env';

const run = promisify(execFile);

type StorageState = Awaited<ReturnType<APIRequestContext['storageState']>>;

export type Account = {
  userId: string;
  email: string;
  password: string;
  /** A personal API token for `Authorization: Bearer …`. */
  token: string;
  /** Cookies of a signed-in browser session. */
  storageState: StorageState;
};

export type Accounts = {
  /** A new user with an API token and a signed-in session. */
  create(label?: string): Promise<Account>;
  /** A fresh session for an existing user (e.g. after the previous one was signed out). */
  signIn(account: Pick<Account, 'email' | 'password'>): Promise<StorageState>;
};

/** Create a user through the CLI, exactly as an operator would: `npm run user -- create --email … --token`. */
async function createUserWithCli(email: string, password: string): Promise<{ userId: string; token: string }> {
  const tsx = path.join(ROOT_DIR, 'node_modules', '.bin', 'tsx');
  const { stdout } = await run(
    tsx,
    ['--conditions=react-server', 'scripts/user.ts', 'create', '--email', email, '--password', password, '--token'],
    { cwd: ROOT_DIR, env: { ...process.env, ...SERVER_ENV }, timeout: 20_000 },
  );
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const created = JSON.parse(line) as { userId?: unknown; token?: unknown };
  if (typeof created.userId !== 'string' || typeof created.token !== 'string') {
    throw new Error(`user CLI printed no userId/token: ${stdout}`);
  }
  return { userId: created.userId, token: created.token };
}

/** Sign in through next-auth's credentials endpoint and return the session cookies. */
async function signInWithCredentials({ email, password }: Pick<Account, 'email' | 'password'>): Promise<StorageState> {
  const ctx = await playwrightRequest.newContext({ baseURL: BASE_URL });
  try {
    const csrf = await ctx.get('/api/auth/csrf');
    expect(csrf.ok(), `GET /api/auth/csrf answered ${csrf.status()}`).toBe(true);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const res = await ctx.post('/api/auth/callback/credentials', {
      form: { csrfToken, email, password, callbackUrl: `${BASE_URL}/agents` },
      maxRedirects: 0,
    });
    const location = res.headers()['location'] ?? '';
    expect(res.status(), `sign-in answered ${res.status()} ${location}`).toBe(302);
    expect(location, 'sign-in redirected to an error').not.toContain('error=');
    const state = await ctx.storageState();
    expect(
      state.cookies.some((c) => c.name.endsWith('authjs.session-token')),
      'sign-in set no session cookie',
    ).toBe(true);
    return state;
  } finally {
    await ctx.dispose();
  }
}

async function createAccount(label: string): Promise<Account> {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@e2e.test`;
  const password = `pw-${crypto.randomUUID()}`;
  const { userId, token } = await createUserWithCli(email, password);
  const storageState = await signInWithCredentials({ email, password });
  return { userId, email, password, token, storageState };
}

export const test = base.extend<{ accounts: Accounts; account: Account; api: APIRequestContext }>({
  accounts: async ({}, provide) => {
    await provide({ create: (label = 'user') => createAccount(label), signIn: signInWithCredentials });
  },
  account: async ({ accounts }, provide, testInfo) => {
    const label = testInfo.titlePath.at(-1)?.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 24) || 'user';
    await provide(await accounts.create(label.replace(/^-|-$/g, '') || 'user'));
  },
  storageState: async ({ account }, provide) => {
    await provide(account.storageState);
  },
  api: async ({ account }, provide) => {
    const ctx = await playwrightRequest.newContext({
      baseURL: BASE_URL,
      extraHTTPHeaders: { authorization: `Bearer ${account.token}` },
    });
    await provide(ctx);
    await ctx.dispose();
  },
});

export { expect };

/** Width that the page's content needs beyond the viewport (0 when nothing overflows horizontally). */
export async function horizontalOverflow(page: import('@playwright/test').Page): Promise<number> {
  return page.evaluate(() => {
    const el = document.scrollingElement ?? document.documentElement;
    return el.scrollWidth - el.clientWidth;
  });
}
