import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, createTeam, expectLive, sendRequest } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

/**
 * The tab title counts the jobs waiting for the person also when they were waiting before the page opened: the
 * title the server renders carries the count, since hydrating the page's <title> puts the server's text back over
 * whatever the workspace set before.
 */
test('a team opened while a job waits for the person has the count in its tab title', async ({ page, api }) => {
  const team = await createTeam(api, 'Asking crew 研🚀', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  await sendRequest(api, team, 'Writer', '/ask Which tone should I use?');
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { waitingJobs: number }).waitingJobs, {
      timeout: RESULT_TIMEOUT,
    })
    .toBe(1);

  const html = await (await page.request.get(`/teams/${team.id}`)).text();
  expect(html).toContain('<title>(1) Asking crew 研🚀 · Ensemble</title>');

  await page.goto(`/teams/${team.id}`);
  await expectLive(page);
  await expect(page.getByRole('article', { name: 'You → @Writer' }).getByRole('textbox', { name: 'Your answer' })).toBeVisible();
  await expect(page).toHaveTitle('(1) Asking crew 研🚀 · Ensemble');
});
