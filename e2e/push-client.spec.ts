import type { Page, Request } from '@playwright/test';
import http from 'node:http';
import { BASE_URL } from './env';
import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, card, createTeam, sendRequest, type Team } from './support/team-flows';

/*
 * The team workspace hears changes by push (ADR 020, docs/decisions/025-push-client.md): its event stream announces
 * a revision, the page reads only what changed (`activity?since=`) and patches its feed. While the stream is down
 * it says so in the footer and polls the same small read; when the stream is back it says "Live" again.
 */
const EVENTS = '**/api/v1/teams/*/events';
/** The reconnect backoff's cap (lib/push-stream.ts RECONNECT_MAX_MS, ±25 %) plus the time to open a stream. */
const RECONNECT = { timeout: 12_000 };

const live = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ });
const polling = (page: Page) => page.getByRole('status').filter({ hasText: 'Reconnecting — checking every 5 s' });

async function crew(api: Parameters<typeof createTeam>[0]): Promise<Team> {
  return createTeam(api, 'Push crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
}

/** Every read of the feed the page makes, so a test can say which kind it was. */
function activityReads(page: Page): Request[] {
  const reads: Request[] = [];
  page.on('request', (r) => {
    if (/\/api\/v1\/teams\/[^/]+\/activity/.test(new URL(r.url()).pathname)) reads.push(r);
  });
  return reads;
}

test('the first paint has the feed; a result sent from elsewhere arrives by push, read as only what changed', async ({ page, api }) => {
  const team = await crew(api);
  await sendRequest(api, team, 'Writer', '/reply Sent before the page opened');
  // The server renders the workspace with its first data: the request is in the HTML itself, before any script.
  const html = await (await page.request.get(`/teams/${team.id}`)).text();
  expect(html).toContain('Sent before the page opened');

  const reads = activityReads(page);
  const errors: string[] = [];
  // (The app has no favicon: the browser's own request for one is not the page's error.)
  page.on('console', (m) => void (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico') && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/teams/${team.id}`);
  await expect(card(page, 'You → @Writer')).toBeVisible();
  await expect(live(page)).toBeVisible();
  // The client takes over the server's HTML as it is: no hydration mismatch, no error.
  expect(errors).toEqual([]);

  // Sent through the API, not the page: only the push can tell the page about it.
  await sendRequest(api, team, 'Reviewer', '/reply Pushed to the open page');
  await expect(card(page, 'You → @Reviewer')).toContainText('Pushed to the open page', { timeout: RESULT_TIMEOUT });
  // What must not happen: re-reading the feed (limit/details pages) on a change, or any read but `since=`.
  expect(reads.length).toBeGreaterThan(0);
  expect(reads.map((r) => new URL(r.url()).searchParams.has('since'))).toEqual(reads.map(() => true));
  await expect(live(page)).toBeVisible();
});

test('with the stream blocked the footer says it is polling and results still arrive; unblocked, it is Live again', async ({ page, api }) => {
  const team = await crew(api);
  await page.route(EVENTS, (route) => route.abort('connectionrefused'));
  await page.goto(`/teams/${team.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Push crew' })).toBeVisible();
  await expect(polling(page)).toBeVisible();
  await expect(live(page)).toHaveCount(0);

  await sendRequest(api, team, 'Writer', '/reply Arrived while polling');
  await expect(card(page, 'You → @Writer')).toContainText('Arrived while polling', { timeout: RESULT_TIMEOUT });
  await expect(polling(page)).toBeVisible();

  await page.unroute(EVENTS);
  await expect(live(page)).toBeVisible(RECONNECT);
  await sendRequest(api, team, 'Reviewer', '/reply Pushed after the reconnect');
  await expect(card(page, 'You → @Reviewer')).toContainText('Pushed after the reconnect', { timeout: RESULT_TIMEOUT });
});

/** Open the account's event streams outside the browser (a browser holds only six connections per host). */
async function holdStreams(token: string, teamId: string, count: number): Promise<http.ClientRequest[]> {
  const held: http.ClientRequest[] = [];
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.get(`${BASE_URL}/api/v1/teams/${teamId}/events`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.once('data', () => resolve());
      });
      req.on('error', reject);
      held.push(req);
    });
  for (let i = 0; i < count; i++) await open();
  return held;
}

test('an account at its open-stream cap still gets results: the page polls instead of failing', async ({ page, api, account }) => {
  const team = await crew(api);
  // The cap (LIMITS.push.maxStreamsPerAccount) held by the same account: the workspace's stream is one past it (429).
  const held = await holdStreams(account.token, team.id, 20);
  try {
    await page.goto(`/teams/${team.id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Push crew' })).toBeVisible();
    await expect(polling(page)).toBeVisible();
    await sendRequest(api, team, 'Writer', '/reply Arrived over the cap');
    await expect(card(page, 'You → @Writer')).toContainText('Arrived over the cap', { timeout: RESULT_TIMEOUT });
    // What must not happen: the page asking for its stream again and again while refused (Retry-After is 30 s).
    // The workspace's own stream (the header's inbox stream is refused and retried on its own terms).
    const streamAsks = await page.evaluate(
      (path) => performance.getEntriesByType('resource').filter((e) => e.name.includes(path)).length,
      `/api/v1/teams/${team.id}/events`,
    );
    expect(streamAsks).toBe(1);
  } finally {
    for (const req of held) req.destroy();
  }
});

test('older history is read on scroll-back, page by page, and a result pushed meanwhile still lands', async ({ page, api }) => {
  const team = await crew(api);
  // 32 requests: one page of 30 on first paint, the oldest two on scroll-back (ACTIVITY_PAGE_SIZE).
  for (let i = 1; i <= 32; i++) await sendRequest(api, team, i % 2 ? 'Writer' : 'Reviewer', `/reply Old answer ${i}.`);
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { pendingJobs: number }).pendingJobs, { timeout: 20_000 })
    .toBe(0);
  const reads = activityReads(page);
  await page.goto(`/teams/${team.id}`);
  const feed = page.getByLabel('Activity feed');
  await expect(page.getByText('Showing the latest 30 of 32 requests and results.')).toBeVisible();
  await expect(page.getByText('Old answer 32.', { exact: true })).toBeVisible();
  // What must not be there yet: the two oldest, which the first page does not hold.
  await expect(page.getByText('Old answer 1.', { exact: true })).toHaveCount(0);
  await expect(live(page)).toBeVisible();

  await feed.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(page.getByText('Old answer 1.', { exact: true })).toBeVisible();
  await expect(page.getByText('Old answer 2.', { exact: true })).toBeVisible();
  await expect(page.getByText(/^Showing the latest/)).toHaveCount(0);
  const before = reads.filter((r) => new URL(r.url()).searchParams.has('before'));
  expect(before).toHaveLength(1);
  expect(new URL(before[0]!.url()).searchParams.get('details')).toBe('1');

  await sendRequest(api, team, 'Writer', '/reply Newest after scroll-back.');
  await expect(feed.getByText('Newest after scroll-back.', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(page.getByText('Old answer 1.', { exact: true })).toBeVisible();
});

test('another owner’s team page is not found and its stream says nothing', async ({ page, api, accounts }) => {
  const other = await accounts.create('other-owner');
  const theirs = await crew(await accounts.apiFor(other));
  await sendRequest(await accounts.apiFor(other), theirs, 'Writer', '/reply Private work');
  await crew(api);

  const res = await page.goto(`/teams/${theirs.id}`);
  expect(res?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  // What must not happen: their team's name, members or work in the page, or a stream opened for it.
  await expect(page.getByText('Private work')).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Push crew' })).toHaveCount(0);
  const stream = await page.request.get(`/api/v1/teams/${theirs.id}/events`);
  expect(stream.status()).toBe(404);
});
