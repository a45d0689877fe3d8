import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, createTeam, expectLive, sendRequest } from './support/team-flows';

test.describe.configure({ timeout: 90_000 });

/**
 * A team's workspace opens on its newest requests (a page of 30); a question asked before 30 later requests is not
 * among them. The Inbox's way to the team must land where the question can be answered.
 */
test('the Inbox opens a team on its requests that need input, however many came after the one asking', async ({ page, api }) => {
  const team = await createTeam(api, 'Busy crew', [{ name: 'Planner' }, { name: 'Writer', instructions: '/reply Drafted.' }]);
  await sendRequest(api, team, 'Planner', '/ask Which audience, 开发者 or managers?');
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { waitingJobs: number }).waitingJobs, { timeout: RESULT_TIMEOUT })
    .toBe(1);
  for (let i = 1; i <= 31; i++) await sendRequest(api, team, 'Writer', `Draft ${i}`);

  await page.goto('/inbox');
  const item = page.getByRole('listitem', { name: /@Planner in team Busy crew/ });
  await expect(item).toBeVisible({ timeout: RESULT_TIMEOUT });
  await item.getByRole('link', { name: 'Open the team' }).click();
  await expect(page).toHaveURL(/\/teams\/[^/?]+\?status=needs_input$/);
  await expectLive(page);
  const asking = page.getByRole('article', { name: 'You → @Planner' });
  const answer = asking.getByRole('textbox', { name: 'Your answer' });
  await expect(answer).toBeVisible();
  await answer.fill('开发者');
  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { waitingJobs: number }).waitingJobs, { timeout: RESULT_TIMEOUT })
    .toBe(0);
});
