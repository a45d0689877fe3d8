import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { openChat, PAGE_DATA } from './support/seed';

/** Send a message in the open chat, wait for its run to start, and open that turn's Steps: the steps' list. */
async function sendAndOpenSteps(page: Page, text: string) {
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Running…' })).toBeVisible(PAGE_DATA);
  const history = page.getByRole('log', { name: 'Conversation history' });
  await history.getByRole('button', { name: 'Steps', exact: true }).first().click(PAGE_DATA);
  return page.getByRole('list', { name: 'Run steps' });
}

/**
 * While a run's model call is in flight nothing is recorded, so the Steps panel used to show only "Run started": a
 * slow provider looked like a stuck run. Now a last pending step says "Waiting for the model…" with the time since,
 * counting up in a timer that is not announced each second; it goes once the run moves on (here: a cancel).
 */
test('the Steps of a turn whose model is slow show a pending "Waiting for the model…" step with its elapsed time', async ({ page, api }) => {
  test.setTimeout(45_000);
  await openChat(page, api, { name: 'Ponderer' });
  // The scripted model takes 30 s before it answers: the test ends the run itself (Cancel), it does not wait it out.
  const steps = await sendAndOpenSteps(page, '/sleep 30000\n/reply finally');
  const waiting = steps.getByRole('listitem').filter({ hasText: 'Waiting for the model…' });
  await expect(waiting).toBeVisible(PAGE_DATA);
  const timer = waiting.getByRole('timer');
  await expect(timer).toHaveText(/^\d+ s$/);
  const first = await timer.textContent();
  await expect(timer).not.toHaveText(first ?? '', { timeout: 5_000 });
  // Its nearest live setting is "off" (the history around it is a log): a screen reader is not read the time every second.
  expect(await timer.evaluate((el) => el.closest('[aria-live]')?.getAttribute('aria-live'))).toBe('off');
  // The announced count is of recorded steps only.
  await expect(page.getByRole('status').filter({ hasText: /steps? so far$/ })).toHaveText('1 step so far');

  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible(PAGE_DATA);
  await expect(steps.getByRole('listitem').last()).toHaveText(/^Run cancelled/, PAGE_DATA);
  await expect(waiting).toHaveCount(0);
});

/**
 * Nothing is recorded until the model has answered either, so the pending step read from recorded steps alone kept
 * saying "Waiting for the model…" while the answer was already streaming in the live output. It turns to "Writing…"
 * as soon as the live output streams: here a scripted model that waits, then writes its answer a word every 2 s.
 */
test('the pending step turns from "Waiting for the model…" to "Writing…" as soon as the answer streams in the live output', async ({ page, api }) => {
  test.setTimeout(60_000);
  await openChat(page, api, { name: 'Slow writer' });
  const words = Array.from({ length: 15 }, (_, i) => `word${i + 1}`).join(' ');
  const steps = await sendAndOpenSteps(page, `/sleep 8000\n/pace 2000\n/reply ${words}`);
  const waiting = steps.getByRole('listitem').filter({ hasText: 'Waiting for the model…' });
  const writing = steps.getByRole('listitem').filter({ hasText: 'Writing…' });
  await expect(waiting).toBeVisible(PAGE_DATA);
  await expect(writing).toHaveCount(0);

  // The first words arrive in the live output; from then on Steps says the answer is being written, not awaited.
  await expect(page.getByRole('group', { name: 'Live output from Slow writer' })).toContainText('word1', PAGE_DATA);
  await expect(writing).toBeVisible(PAGE_DATA);
  await expect(waiting).toHaveCount(0);
  await expect(writing.getByRole('timer')).toHaveCount(0);
  // Still mid-answer (a word every 2 s): the step stays "Writing…" while more words arrive.
  await expect(page.getByRole('group', { name: 'Live output from Slow writer' })).toContainText('word3', PAGE_DATA);
  await expect(writing).toBeVisible();
  await expect(waiting).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: /steps? so far$/ })).toHaveText('1 step so far');

  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(steps.getByRole('listitem').last()).toHaveText(/^Run cancelled/, PAGE_DATA);
  await expect(writing).toHaveCount(0);
});
