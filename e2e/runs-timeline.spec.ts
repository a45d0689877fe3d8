import type { APIRequestContext, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, createTeam, sendRequest, type Team } from './support/team-flows';

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
  await page.getByRole('link', { name: 'Runs', exact: true }).click(FIRST_LOAD);
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}/runs$`), FIRST_LOAD);
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
  await expect(page.getByText(/3 runs · 2 handoffs · [\d,]+ tokens/)).toBeVisible();

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
