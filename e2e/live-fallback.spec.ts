import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { createAgent, createConversation } from './support/seed';
import { FIRST_LOAD, createTeam } from './support/team-flows';

/*
 * The fallback every live view shares while its push stream is down (lib/query/use-live-stream.ts, ADR 052): it
 * polls at the view's cadence, skips every poll in a hidden tab, and reads at once when the tab is shown again.
 * Two paths through the hook: a TanStack query (the conversation) and a read of the view's own (the team feed's
 * `since` read). The page's clock is Playwright's, so a minute in a hidden tab takes no minute here.
 */
test.describe.configure({ timeout: 60_000 });

const polling = (page: Page) => page.getByRole('status').filter({ hasText: 'Reconnecting — checking every 5 s' });

/** Paths of the page's requests, in the order it made them. */
function requestLog(page: Page): string[] {
  const log: string[] = [];
  page.on('request', (r) => log.push(`${r.method()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`));
  return log;
}

/** Every request the page made before now is in the log: a request of its own after them, awaited. */
async function settle(page: Page, log: string[]): Promise<void> {
  const marker = `/api/health?marker=${log.length}-${Date.now()}`;
  await page.evaluate((url) => fetch(url).then((r) => r.status), marker);
  await expect.poll(() => log.some((l) => l.endsWith(marker)), { timeout: 5_000 }).toBe(true);
}

/** As the browser does when the person switches tabs (TanStack's focusManager listens for this event). */
async function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  }, hidden);
}

/**
 * With the stream refused and the page on screen: one read per 5 s of the page's clock. Hidden for a minute: not one
 * read. Shown again: one read at once, without waiting for the next tick.
 */
async function expectFallback(page: Page, log: string[], isRead: (line: string) => boolean): Promise<void> {
  const reads = () => log.filter(isRead).length;
  await expect(polling(page)).toBeVisible(FIRST_LOAD);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  await settle(page, log);

  const shown = reads();
  await page.clock.runFor(5_000);
  await expect.poll(reads, { timeout: 5_000 }).toBe(shown + 1);

  await settle(page, log);
  await setTabHidden(page, true);
  const hidden = reads();
  await page.clock.runFor(60_000);
  await settle(page, log);
  // What must not happen: a hidden tab polling (twelve reads in that minute).
  expect(reads()).toBe(hidden);

  await setTabHidden(page, false);
  await expect.poll(reads, { timeout: 5_000 }).toBe(hidden + 1);
  await expect(polling(page)).toBeVisible();
}

test('a conversation whose stream is down polls every 5 s, not in a hidden tab, and reads at once when shown again', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Echo', description: 'Replies' });
  const { id } = await createConversation(api, agent.id);
  await page.route(new RegExp(`/api/v1/conversations/${id}/events$`), (route) => route.fulfill({ status: 503, body: 'down' }));
  const log = requestLog(page);
  await page.clock.install();
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Echo' })).toBeVisible(FIRST_LOAD);
  await expectFallback(page, log, (line) => line === `GET /api/v1/conversations/${id}`);
});

test('a team workspace whose stream is down polls its `since` read the same way', async ({ page, api }) => {
  const team = await createTeam(api, 'Hidden crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  await page.route('**/api/v1/teams/*/events', (route) => route.abort('connectionrefused'));
  const log = requestLog(page);
  await page.clock.install();
  await page.goto(`/teams/${team.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Hidden crew' })).toBeVisible(FIRST_LOAD);
  await expectFallback(page, log, (line) => line.startsWith(`GET /api/v1/teams/${team.id}/activity?`) && line.includes('since='));
});
