/**
 * The teams list follows push (ADR 030): a team's new "waiting for input" badge appears without a reload, with no
 * re-read of the list on a timer while the stream is up; with the stream blocked, the list falls back to its
 * 10-second re-read and still gets there.
 */
import type { Page, Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { createTeam, sendRequest } from './support/team-flows';

/** A slow model (a quiet stretch longer than the old 10 s re-read) that then asks the person a question. */
const SLOW_ASK = ['/sleep 16000', '/ask Which format do you want?'].join('\n');

function recordListReads(page: Page) {
  const reads: number[] = [];
  const streams: number[] = [];
  page.on('request', (req: Request) => {
    const path = new URL(req.url()).pathname;
    if (req.method() === 'GET' && path === '/api/v1/teams') reads.push(Date.now());
    if (path === '/api/v1/teams/events') streams.push(Date.now());
  });
  return { reads, streams };
}

const teamLink = (page: Page, name: string) => page.getByRole('list', { name: 'Your teams' }).getByRole('link').filter({ hasText: name });

test('the teams list shows a team now waiting for input without a reload and without re-reading on a timer', async ({ page, api }) => {
  test.setTimeout(60_000);
  const team = await createTeam(api, 'Pushed list', [
    { name: 'Asker', description: 'Asks things' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const seen = recordListReads(page);
  await page.goto('/teams');
  const link = teamLink(page, 'Pushed list');
  await expect(link).toBeVisible({ timeout: 5_000 });
  await expect.poll(() => seen.streams.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);

  await sendRequest(api, team, 'Asker', SLOW_ASK);
  await expect(link.getByText('1 in progress')).toBeVisible({ timeout: 5_000 });
  // The quiet stretch starts once the job runs (its admission is a change the list hears) and the model sleeps.
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}/activity?limit=1`)).json()) as { jobs: Array<{ status: string }> }).jobs[0]?.status, {
      timeout: 5_000,
    })
    .toBe('running');
  const quietFrom = Date.now() + 1_000;
  await expect(link.getByText('1 waiting for input')).toBeVisible({ timeout: 22_000 });
  const shownAt = Date.now();
  expect(shownAt - quietFrom, 'the quiet stretch outlasts the old 10 s re-read').toBeGreaterThan(12_000);
  // What must not happen: a re-read of the list while nothing changed (the model was asleep). The window is over
  // 10.5 s, so the old timer would have read in it; the read that showed the badge came after the change, within
  // moments of the badge appearing.
  const quiet = seen.reads.filter((at) => at > quietFrom && at < shownAt - 1_500);
  expect(quiet.map((at) => new Date(at).toISOString())).toEqual([]);
});

test('with its stream blocked, the teams list falls back to re-reading every 10 s and still shows the change', async ({ page, api }) => {
  test.setTimeout(60_000);
  await page.route('**/api/v1/teams/events', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  const team = await createTeam(api, 'Polled list', [
    { name: 'Asker', description: 'Asks things' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const seen = recordListReads(page);
  await page.goto('/teams');
  const link = teamLink(page, 'Polled list');
  await expect(link).toBeVisible({ timeout: 5_000 });
  await sendRequest(api, team, 'Asker', '/ask Which format do you want?');
  await expect(link.getByText('1 waiting for input')).toBeVisible({ timeout: 15_000 });
  expect(seen.reads.length, 'the change arrived by a timed re-read').toBeGreaterThanOrEqual(1);
  expect(seen.streams.length, 'the list kept trying its stream').toBeGreaterThanOrEqual(1);
});
