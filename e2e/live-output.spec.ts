import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { card, createAgent, createTeam, expectLive, FIRST_LOAD, sendRequest, type Team } from './support/team-flows';

/*
 * Live output (ADR 031): while a member writes its answer, the card shows the text so far, pushed on the team's
 * event stream; the result replaces it when the job finishes. The embedded scripted model streams word by word,
 * `/pace MS` apart, so the page can be watched while the text grows.
 */
test.describe.configure({ timeout: 60_000 });
const RESULT_TIMEOUT = 20_000;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i + 1}`).join(' ');

const layouts = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

/** Serious or critical axe violations (contrast included) in the feed, one line each. */
async function feedViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include('section[aria-labelledby="activity-heading"]').analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
}

async function openLive(page: Page, team: Team, layout: (typeof layouts)[number]) {
  await page.setViewportSize(layout.viewport);
  await page.emulateMedia({ colorScheme: layout.scheme });
  await page.goto(`/teams/${team.id}`);
  if (layout.scheme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  await expectLive(page);
}

const liveOutput = (page: Page) => card(page, 'You → @Writer').getByRole('group', { name: 'Live output from Writer' });
const textOf = async (page: Page) => (await liveOutput(page).textContent()) ?? '';

for (const layout of layouts) {
  test(`a running member's text grows in its card, plain and quiet for screen readers (${layout.name})`, async ({ page, api }) => {
    const team = await createTeam(api, 'Live crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
    await openLive(page, team, layout);
    // Sent through the API: only the push can show the page what is being written. Slow enough to look at.
    const text = `<b>bold</b> ${words(40)}`;
    await sendRequest(api, team, 'Writer', `/pace 1500\n/reply ${text}`);
    const job = card(page, 'You → @Writer');
    await expect(liveOutput(page)).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(job).toContainText('Writing…');
    const first = await textOf(page);
    expect(first.length).toBeGreaterThan(0);
    expect(text.startsWith(first)).toBe(true);
    // Plain text: the model's markup is shown as written, never parsed.
    await expect(liveOutput(page).locator('b')).toHaveCount(0);
    await expect.poll(async () => (await textOf(page)).length, { timeout: 10_000 }).toBeGreaterThan(first.length);
    expect(text.startsWith(await textOf(page))).toBe(true);
    await expect(job.getByText('Result', { exact: true })).toHaveCount(0);

    // Busy, not a live region: a screen reader is not read every few words aloud.
    await expect(liveOutput(page)).toHaveAttribute('aria-busy', 'true');
    expect(await liveOutput(page).evaluate((el) => el.closest('[aria-live], [role="status"], [role="log"], [role="alert"]') === null)).toBe(true);
    expect(await feedViolations(page)).toEqual([]);
    await expect(liveOutput(page)).toBeVisible();
    if (layout.viewport.width < 400) {
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    }

    // Cancelled mid-answer: the card says so and the half-written text goes.
    await job.getByRole('button', { name: 'Task details' }).click();
    await job.getByRole('button', { name: 'Cancel' }).click();
    await expect(job).toContainText('Cancelled', { timeout: RESULT_TIMEOUT });
    await expect(liveOutput(page)).toHaveCount(0);
  });

  test(`the result replaces the live text when the job finishes (${layout.name})`, async ({ page, api }) => {
    const team = await createTeam(api, 'Live crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
    await openLive(page, team, layout);
    const text = words(20);
    await sendRequest(api, team, 'Writer', `/pace 300\n/reply ${text}`);
    const job = card(page, 'You → @Writer');
    await expect(liveOutput(page)).toBeVisible({ timeout: RESULT_TIMEOUT });
    expect(text.startsWith(await textOf(page))).toBe(true);
    await expect(job.getByText('Result', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
    await expect(job).toContainText(text);
    await expect(liveOutput(page)).toHaveCount(0);
    await expect(job).not.toContainText('Writing…');
  });
}

test('a viewer who opens the workspace mid-answer sees the text written so far', async ({ page, api }) => {
  const team = await createTeam(api, 'Late crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  const text = words(40);
  const jobId = await sendRequest(api, team, 'Writer', `/pace 500\n/reply ${text}`);
  // Wait (bounded) until the member is writing, then open the page.
  const status = async () =>
    ((await (await api.get(`/api/v1/teams/${team.id}/activity?limit=5`)).json()) as { jobs: Array<{ id: string; status: string }> }).jobs.find((j) => j.id === jobId)?.status;
  await expect.poll(status, { timeout: RESULT_TIMEOUT }).toBe('running');
  await page.goto(`/teams/${team.id}`);
  // The page's first load and its stream's first messages (the text so far comes right after the revision).
  await expect(liveOutput(page)).toBeVisible({ timeout: 10_000 });
  expect(text.startsWith(await textOf(page))).toBe(true);
  await expect(card(page, 'You → @Writer')).toContainText(text, { timeout: RESULT_TIMEOUT });
});

test('a conversation shows what its agent is writing while the run is active, then the answer (390 px, dark)', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Narrator' });
  const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Narrator' })).toBeVisible(FIRST_LOAD);

  const text = words(20);
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`/pace 300\n/reply ${text}`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const live = page.getByRole('group', { name: 'Live output from Narrator' });
  await expect(live).toBeVisible({ timeout: RESULT_TIMEOUT });
  const first = (await live.textContent()) ?? '';
  expect(text.startsWith(first)).toBe(true);
  await expect.poll(async () => ((await live.textContent()) ?? '').length, { timeout: 10_000 }).toBeGreaterThan(first.length);
  // Outside the history's log (a live region) and not one itself.
  expect(await live.evaluate((el) => el.closest('[aria-live], [role="status"], [role="log"], [role="alert"]') === null)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await expect(page.getByRole('log', { name: 'Conversation history' })).toContainText(text, { timeout: RESULT_TIMEOUT });
  // Gone with the run's "Running…" status (the answer is in the history before the run is recorded as finished).
  await expect(page.getByRole('status').filter({ hasText: 'Running' })).toHaveCount(0, { timeout: RESULT_TIMEOUT });
  await expect(live).toHaveCount(0);
});

/*
 * A model call retried after a transient failure (ADR 042): the scripted model's `/flaky 1` writes one word, then
 * fails as a provider's 429 asking for 2 s. What must not happen: the failed attempt's word left on screen as if it
 * were the answer, or a card that goes quiet while the call is tried again.
 */
test("a member's card says its model call is being retried, drops what the failed attempt wrote, then shows the answer", async ({ page, api }) => {
  const team = await createTeam(api, 'Retry crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  await openLive(page, team, layouts[0]!);
  const text = `Answer ${words(12)}`;
  await sendRequest(api, team, 'Writer', `/flaky 1\n/pace 300\n/reply ${text}`);
  const job = card(page, 'You → @Writer');
  await expect(job.getByText('Retrying (attempt 2 of 3)…')).toBeVisible({ timeout: RESULT_TIMEOUT });
  // While it waits, the failed attempt's word is gone: no text is shown, only the notice.
  await expect(liveOutput(page)).toHaveCount(0);
  await expect(job.getByText('Writing…')).toBeVisible({ timeout: 10_000 });
  expect(text.startsWith(await textOf(page))).toBe(true);
  await expect(job.getByText('Retrying (attempt 2 of 3)…')).toHaveCount(0);
  await expect(job.getByText('Result', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(job).toContainText(text);
});

test('a conversation says its model call is being retried, then shows the answer', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Narrator' });
  const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Narrator' })).toBeVisible(FIRST_LOAD);
  const text = `Answer ${words(12)}`;
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`/flaky 1\n/pace 300\n/reply ${text}`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByText('Retrying (attempt 2 of 3)…')).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(page.getByRole('group', { name: 'Live output from Narrator' })).toHaveCount(0);
  const history = page.getByRole('log', { name: 'Conversation history' });
  await expect(history).toContainText(text, { timeout: RESULT_TIMEOUT });
  await expect(page.getByText('Retrying (attempt 2 of 3)…')).toHaveCount(0);
});
