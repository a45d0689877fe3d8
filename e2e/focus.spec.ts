/**
 * Keyboard focus after common actions: it stays on the control or moves to what changed, never drops to <body>
 * (where a keyboard or screen-reader user loses their place). Everything here is done from the keyboard.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, card, createAgent, createTeam, openTeam, sendRequest } from './support/team-flows';

// Team jobs run through the real scheduler and the embedded `scripted` model on a busy machine.
test.describe.configure({ timeout: 60_000 });

const focusIsLost = (page: Page) => page.evaluate(() => !document.activeElement || document.activeElement === document.body);

const jobStatus = async (api: APIRequestContext, teamId: string, jobId: string) => {
  const { jobs } = (await (await api.get(`/api/v1/teams/${teamId}/activity?limit=50`)).json()) as { jobs: Array<{ id: string; status: string }> };
  return jobs.find((j) => j.id === jobId)?.status;
};

test('confirming the delete dialog gives focus to the list’s heading once the row is gone', async ({ page, api }) => {
  await createAgent(api, { name: 'Alpha' });
  await createAgent(api, { name: 'Beta' });
  await page.goto('/agents');
  const heading = page.getByRole('heading', { level: 1, name: 'Agents' });
  const dialog = page.getByRole('dialog', { name: 'Delete agent?' });

  for (const name of ['Alpha', 'Beta']) {
    const opener = page.getByRole('button', { name: `Delete ${name}` });
    await opener.focus();
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: 'Delete agent' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { level: 2, name })).toHaveCount(0);
    // The button that opened the dialog went with its row: focus is on the heading above the list.
    await expect(heading).toBeFocused();
    expect(await focusIsLost(page)).toBe(false);
  }
  await expect(page.getByText('No agents yet')).toBeVisible();
});

test('Retry keeps the focus on its button while it sends', async ({ page, api }) => {
  const team = await createTeam(api, 'Retry crew', [
    { name: 'Researcher', description: 'Finds things' },
    { name: 'Writer', description: 'Writes things' },
  ]);
  const failed = await sendRequest(api, team, 'Researcher', '/fail provider down');
  await expect.poll(() => jobStatus(api, team.id, failed), { timeout: RESULT_TIMEOUT }).toBe('failed');
  await openTeam(page, team.id);

  // The retry card has the same headline and, once it fails too, its own Retry: pin the original card.
  const original = card(page, 'You → @Researcher').filter({ hasNotText: 'Retry of:' });
  const retry = original.getByRole('button', { name: 'Retry', exact: true });
  await retry.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('article').filter({ hasText: 'Retry of:' })).toHaveCount(1, { timeout: RESULT_TIMEOUT });
  // While it sent, the button was unavailable (aria-disabled) but kept the focus; now it is available again.
  await expect(retry).toBeFocused();
  await expect(retry).not.toHaveAttribute('aria-disabled', 'true');
  expect(await focusIsLost(page)).toBe(false);
});

test('Cancel (in Task details) moves the focus to the card’s new status once the request is cancelled', async ({ page, api }) => {
  const team = await createTeam(api, 'Cancel crew', [
    { name: 'Researcher', description: 'Finds things' },
    { name: 'Writer', description: 'Writes things' },
  ]);
  // An open question holds the Writer's next request queued, so it can be cancelled.
  await sendRequest(api, team, 'Writer', '/ask Hold on?');
  const held = await sendRequest(api, team, 'Writer', '/reply held back');
  await openTeam(page, team.id);

  const queued = page.getByRole('article').filter({ has: page.getByText('/reply held back', { exact: true }) });
  await expect(queued.getByText('Queued', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await queued.getByRole('button', { name: 'Task details' }).focus();
  await page.keyboard.press('Enter');
  const cancel = queued.getByRole('button', { name: 'Cancel', exact: true });
  await cancel.focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => jobStatus(api, team.id, held), { timeout: RESULT_TIMEOUT }).toBe('cancelled');
  await expect(cancel).toHaveCount(0);
  // The Cancel button went with the status it acted on: focus is on the status that replaced it.
  await expect(queued.locator(':focus')).toHaveText(/^Status:\s*Cancelled$/);
  expect(await focusIsLost(page)).toBe(false);
});
