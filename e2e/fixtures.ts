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
 * - `account`: a fresh user for this test, created like `npm run user -- create … --token` does (by a per-worker
 *   user-factory process, e2e/support/user-factory.ts, against the server's DATA_DIR), then signed in through
 *   next-auth's own endpoints (GET /api/auth/csrf, POST /api/auth/callback/credentials) — no login form is
 *   clicked. Each test gets its own user, so tests can sign out, rename or delete freely without disturbing
 *   each other.
 * - `page` / `context`: signed in as `account` (its cookies are the context's storageState).
 * - `api`: an APIRequestContext that sends `Authorization: Bearer <account.token>` to the same server.
 * - `accounts.create(label)`: more users when a test needs two owners (e.g. "another user's id answers 404");
 *   `accounts.create(label, { admin: true })` makes an instance admin (the Admin page); every other fixture
 *   account is a member, even the data directory's first;
 *   `accounts.apiFor(other)` is a Bearer client for one of them, `accounts.signIn(other)` a storageState for
 *   `browser.newContext({ storageState })`. See e2e/README.md.
 *
 * A test about signing in or out with the form itself, or about signed-out pages, opts out of the session:
 *
 *   test.use({ storageState: { cookies: [], origins: [] } });
 *
 * and then no account is created unless the test asks for one.
 */
import { test as base, expect, request as playwrightRequest, type APIRequestContext, type Page } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { BASE_URL, ROOT_DIR, SERVER_ENV } from './env';

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
  /** A new user with an API token and a signed-in session; `admin: true` makes it an instance admin. */
  create(label?: string, options?: { admin?: boolean }): Promise<Account>;
  /** A fresh session for an existing user (e.g. after the previous one was signed out). */
  signIn(account: Pick<Account, 'email' | 'password'>): Promise<StorageState>;
  /** A Bearer-token API client for that user (disposed after the test). */
  apiFor(account: Pick<Account, 'token'>): Promise<APIRequestContext>;
};

const bearerClient = (token: string) =>
  playwrightRequest.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });

type CreatedUser = { userId: string; token: string };

/**
 * Creates users in this worker's user-factory process (e2e/support/user-factory.ts: the user CLI's
 * `create --token`, kept running so each new user costs milliseconds instead of a tsx start-up).
 */
class UserFactory {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, { resolve: (user: CreatedUser) => void; reject: (error: Error) => void }>();
  private readonly ready: Promise<void>;
  private nextId = 1;
  private stderr = '';

  constructor() {
    const tsx = path.join(ROOT_DIR, 'node_modules', '.bin', 'tsx');
    this.child = spawn(tsx, ['--conditions=react-server', 'e2e/support/user-factory.ts'], {
      cwd: ROOT_DIR,
      env: { ...process.env, ...SERVER_ENV },
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    let markReady: () => void = () => {};
    let failReady: (error: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { id: number; ready?: boolean; userId?: string; token?: string; error?: string };
      if (message.ready) return markReady();
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.userId && message.token) waiter?.resolve({ userId: message.userId, token: message.token });
      else waiter?.reject(new Error(`creating a user failed: ${message.error ?? line}`));
    });
    this.child.on('exit', (code) => {
      const error = new Error(`the e2e user factory exited (${code}): ${this.stderr.trim()}`);
      failReady(error);
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    });
  }

  async create(email: string, password: string, admin = false): Promise<CreatedUser> {
    await this.ready;
    const id = this.nextId++;
    return new Promise<CreatedUser>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, email, password, admin })}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }
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

async function createAccount(factory: UserFactory, label: string, admin = false): Promise<Account> {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@e2e.test`;
  const password = `pw-${crypto.randomUUID()}`;
  const { userId, token } = await factory.create(email, password, admin);
  const storageState = await signInWithCredentials({ email, password });
  return { userId, email, password, token, storageState };
}

export const test = base.extend<{ accounts: Accounts; account: Account; api: APIRequestContext }, { userFactory: UserFactory }>({
  userFactory: [
    async ({}, provide) => {
      const factory = new UserFactory();
      await provide(factory);
      factory.close();
    },
    // Its start-up (tsx + migrations) is the worker's, not the first test's: give it its own time budget.
    { scope: 'worker', timeout: 60_000 },
  ],
  accounts: async ({ userFactory }, provide) => {
    const clients: APIRequestContext[] = [];
    await provide({
      create: (label = 'user', options = {}) => createAccount(userFactory, label, options.admin === true),
      signIn: signInWithCredentials,
      apiFor: async ({ token }) => {
        const client = await bearerClient(token);
        clients.push(client);
        return client;
      },
    });
    await Promise.all(clients.map((client) => client.dispose()));
  },
  account: async ({ accounts }, provide, testInfo) => {
    const label = testInfo.titlePath.at(-1)?.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 24) || 'user';
    await provide(await accounts.create(label.replace(/^-|-$/g, '') || 'user'));
  },
  storageState: async ({ account }, provide) => {
    await provide(account.storageState);
  },
  api: async ({ account }, provide) => {
    const client = await bearerClient(account.token);
    await provide(client);
    await client.dispose();
  },
});

export { expect };

/**
 * How many CSS pixels the page sticks out sideways (0 or less when nothing does), and what sticks out.
 * The root's scrollWidth alone is not enough: the global stylesheet hides horizontal overflow on html and body,
 * so an element wider than the viewport is clipped rather than scrollable. Every element is measured too,
 * except visually hidden ones and those inside an ancestor that scrolls or clips on purpose (a horizontally
 * scrolling row, truncation).
 */
export async function measureHorizontalOverflow(page: Page): Promise<{ px: number; offenders: string[] }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const width = root.clientWidth;
    const containedByScroller = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    // Visually hidden elements (Tailwind's sr-only: 1 px, clipped, margin -1 px) are not on screen at all.
    const visuallyHidden = (el: Element) => {
      const style = getComputedStyle(el);
      return style.clipPath !== 'none' || (style.clip !== 'auto' && style.clip !== '');
    };
    let px = Math.max(root.scrollWidth - width, document.body.scrollWidth - document.body.clientWidth);
    const offenders: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || (r.right <= width + 0.5 && r.left >= -0.5)) continue;
      if (visuallyHidden(el) || containedByScroller(el)) continue;
      px = Math.max(px, r.right - width, -r.left);
      if (offenders.length < 5) offenders.push(`${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '').slice(0, 80)}`);
    }
    return { px: Math.ceil(px), offenders };
  });
}

/** measureHorizontalOverflow(page).px: 0 or less when nothing sticks out sideways. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return (await measureHorizontalOverflow(page)).px;
}
