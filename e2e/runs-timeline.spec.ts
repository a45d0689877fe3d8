import type { APIRequestContext, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, createTeam, expectLive, sendRequest, type Team } from './support/team-flows';

const DARK = /(^|\s)dark(\s|$)/;

// A handoff through the real scheduler, then two page loads, on a busy two-core machine.
test.describe.configure({ timeout: 75_000 });

/** Research hands a review to Review (scripted by its owner's instructions); all three jobs finish. */
async function teamWithHandoff(api: APIRequestContext): Promise<Team> {
  const team = await createTeam(api, 'Timeline team', [{ name: 'Research' }, { name: 'Review', instructions: '/reply Looks good' }]);
  await sendRequest(api, team, 'Research', `/call send_member ${JSON.stringify({ member: 'Review', text: 'Please review', request_id: 'r1' })}`);
  await expect
    .poll(
      async () => {
        const res = await api.get(`/api/v1/teams/${team.id}/activity?limit=20`);
        const body = (await res.json()) as { jobs: Array<{ status: string }> };
        return body.jobs.length === 3 && body.jobs.every((j) => j.status === 'completed');
      },
      { timeout: RESULT_TIMEOUT * 2 },
    )
    .toBe(true);
  return team;
}

async function openRuns(page: Page, team: Team) {
  // The first load of a page can take longer than the default navigation bound while other suites build.
  await page.goto(`/teams/${team.id}`, FIRST_LOAD);
  // A click on the server's HTML before hydration is lost (seen in CI: the URL never changed).
  await expectLive(page);
  await page.getByRole('link', { name: 'Runs', exact: true }).click(FIRST_LOAD);
  // The first navigation to the Runs page renders it on the server with its data: seconds under a CI run's load.
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}/runs$`), { timeout: RESULT_TIMEOUT });
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('list', { name: 'Lanes' })).toBeVisible(FIRST_LOAD);
}

const bars = (page: Page, member: string) => page.getByRole('button', { name: new RegExp(`^${member}, completed, \\d`) });

test('the Runs page shows a lane per member, bars, the handoff, details on focus, and the same runs as a table', async ({ page, api }) => {
  const team = await teamWithHandoff(api);
  await page.emulateMedia({ colorScheme: 'light' });
  await openRuns(page, team);

  const lanes = page.getByRole('list', { name: 'Lanes' }).getByRole('listitem');
  await expect(lanes).toHaveCount(2);
  await expect(lanes.nth(0)).toContainText('Research');
  await expect(lanes.nth(1)).toContainText('Review');
  // Research ran the request and, later, the receipt of Review's result; Review ran the handoff.
  await expect(bars(page, 'Research')).toHaveCount(2);
  await expect(bars(page, 'Review')).toHaveCount(1);
  await expect(page.locator('[data-handoff]')).toHaveCount(1);
  // The person's own request to Research is marked on Research's first bar (the person has no lane).
  await expect(page.locator('[data-person-request]')).toHaveCount(1);
  // Research's request to Review is the one handoff; the person's own request is counted apart.
  await expect(page.getByText(/3 runs · 1 handoff · 1 request from you · [\d,]+ tokens/)).toBeVisible();

  // Keyboard: from the view switch, Tab reaches the first bar; its details appear.
  await page.getByRole('button', { name: 'Table' }).focus();
  await page.keyboard.press('Tab');
  const first = bars(page, 'Research').first();
  await expect(first).toBeFocused();
  const details = page.getByTestId('run-details');
  await expect(details).toContainText('Research · completed · request');
  await expect(details).toContainText(/Duration\s*[\d.]+ (ms|s)/);
  await expect(details).toContainText(/Tokens\s*[\d,]+ in · [\d,]+ out · \d+ model call/);
  // Its accessible name carries the same figures.
  await expect(first).toHaveAccessibleName(/^Research, completed, \d\d:\d\d:\d\d–\d\d:\d\d:\d\d, \d+ (ms|s), [\d,]+ tokens$/);
  await expect(first).toHaveAttribute('aria-describedby', /.+/);

  // Hover shows the same figures for the bar under the pointer.
  await bars(page, 'Review').first().hover();
  await expect(details).toContainText('Review · completed · request');
  await expect(details).toContainText(/Duration\s*[\d.]+ (ms|s)/);
  await expect(details).toContainText(/Tokens\s*[\d,]+ in · [\d,]+ out · \d+ model call/);

  await page.getByRole('button', { name: 'Table' }).click();
  await expect(page.getByRole('button', { name: 'Table' })).toHaveAttribute('aria-pressed', 'true');
  const runsTable = page.getByRole('table', { name: /^Runs/ });
  await expect(runsTable.getByRole('columnheader', { name: 'Tokens in' })).toBeVisible();
  const rows = runsTable.locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0).getByRole('rowheader')).toHaveText('Research');
  await expect(rows.nth(0)).toContainText('Request');
  await expect(rows.nth(1).getByRole('rowheader')).toHaveText('Review');
  await expect(rows.nth(2)).toContainText('Receipt');
  // Tokens per job: three jobs (the person's request, the handoff, the receipt), one run each.
  const jobTotals = page.getByRole('table', { name: /^Tokens by job/ });
  await expect(jobTotals.locator('tbody tr')).toHaveCount(3);
  await expect(jobTotals.getByRole('row', { name: /^Review Request \S+ 1 / })).toBeVisible();
  const totals = page.getByRole('table', { name: 'Token totals' });
  await expect(totals.getByRole('rowheader', { name: 'Team total' })).toBeVisible();
  await expect(totals.getByRole('row', { name: /^Research 2 / })).toBeVisible();
  const handoffs = page.getByRole('table', { name: /^Handoffs/ });
  await expect(handoffs.getByRole('row', { name: /^Research Review/ })).toBeVisible();
  await expect(handoffs.getByRole('row', { name: /^You Research/ })).toBeVisible();
});

test('the Runs page renders in dark mode and at 390 px with lanes scrolling inside their own region', async ({ page, api }) => {
  const team = await teamWithHandoff(api);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 844 });
  await openRuns(page, team);
  await expect(page.locator('html')).toHaveClass(DARK);
  await expect(bars(page, 'Research')).toHaveCount(2);

  // Nothing sticks out of the page sideways; the lanes scroll inside their region, and say so.
  expect(await measureHorizontalOverflow(page)).toEqual({ px: expect.any(Number), offenders: [] });
  expect((await measureHorizontalOverflow(page)).px).toBeLessThanOrEqual(0);
  const region = page.getByRole('region', { name: /Runs by member over time \(scrolls sideways\)/ });
  await expect(region).toBeVisible();
  await expect(page.getByText(/The lanes scroll sideways/)).toBeVisible();
  const scrolls = await region.evaluate((el) => el.scrollWidth > el.clientWidth);
  expect(scrolls).toBe(true);

  // A focused bar far right is scrolled into view, and its details show under the chart.
  const last = bars(page, 'Research').last();
  await last.focus();
  await expect(last).toBeInViewport();
  await expect(page.getByTestId('run-details')).toContainText('Research · completed · receipt');

  await page.getByRole('button', { name: 'Table' }).click();
  await expect(page.getByRole('table', { name: /^Runs/ }).locator('tbody tr')).toHaveCount(3);
  expect((await measureHorizontalOverflow(page)).px).toBeLessThanOrEqual(0);
});

const RUNS_READ = /\/api\/v1\/teams\/[^/]+\/runs\?/;

test('the Runs page follows the team stream: a new run appears running and ends, with no timed re-read meanwhile', async ({ page, api }) => {
  const team = await createTeam(api, 'Pushed runs', [{ name: 'Research' }, { name: 'Review' }]);
  const reads: number[] = [];
  page.on('request', (req) => {
    if (req.method() === 'GET' && RUNS_READ.test(req.url())) reads.push(Date.now());
  });
  await page.goto(`/teams/${team.id}/runs`, FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByText('No runs in the last 24 hours')).toBeVisible(FIRST_LOAD);
  await expectLive(page);

  // One model turn that sleeps six seconds: the bar must show up running (pushed when its job got its run) …
  await sendRequest(api, team, 'Research', '/sleep 6000\n/reply Slow done');
  const running = page.getByRole('button', { name: /^Research, running, / });
  await expect(running).toBeVisible({ timeout: RESULT_TIMEOUT });
  const runningSeenAt = Date.now();
  // … and end completed, pushed again when the job finished.
  await expect(bars(page, 'Research')).toHaveCount(1, { timeout: 15_000 });
  await expect(running).toHaveCount(0);

  // While it ran (from the running bar to the run's own end) the page read nothing: no 3 s timer any more.
  const body = (await (await api.get(`/api/v1/teams/${team.id}/runs`)).json()) as { runs: Array<{ finishedAt: string | null }> };
  const finishedAt = Date.parse(body.runs[0]!.finishedAt!);
  expect(finishedAt - runningSeenAt, 'the quiet stretch outlasts the old 3 s timer').toBeGreaterThan(3_500);
  const duringRun = reads.filter((at) => at > runningSeenAt + 500 && at < finishedAt - 200);
  expect(duringRun, `reads while the run worked: ${duringRun.map((at) => at - runningSeenAt).join(', ')} ms after it showed`).toEqual([]);
});

test('with the team stream blocked, the Runs page says so and still shows a new run by checking every 3 s', async ({ page, api }) => {
  const team = await createTeam(api, 'Polled runs', [{ name: 'Research' }, { name: 'Review' }]);
  await page.route(/\/api\/v1\/teams\/[^/]+\/events(\?|$)/, (route) => route.abort());
  await page.goto(`/teams/${team.id}/runs`, FIRST_LOAD);
  await expect(page.getByText('No runs in the last 24 hours')).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('status').filter({ hasText: 'Reconnecting — checking every 3 s' })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await sendRequest(api, team, 'Research', '/reply Quick');
  await expect(bars(page, 'Research')).toHaveCount(1, { timeout: RESULT_TIMEOUT });
});

test('a team name with no spaces wraps in the Runs page’s way back at 390 px instead of running off the screen', async ({ page, api }) => {
  const name = 'M'.repeat(80);
  const team = await createTeam(api, name, [{ name: 'Research' }, { name: 'Review' }]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/teams/${team.id}/runs`, FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible(FIRST_LOAD);
  const back = page.getByRole('link', { name });
  await expect(back).toBeVisible();
  const box = (await back.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
});
