import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, createTeam, openTeam, sendRequest } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

/**
 * The activity feed scrolls inside its own box. The cards in it carry visually hidden text (the status label,
 * announcements), which is absolutely positioned: unless the feed is their containing block, each one sits where
 * it would be in the unscrolled feed, far below the page's end, and the page itself scrolls on into empty space.
 */
test('the team page ends where its content ends, however long the feed', async ({ page, api }) => {
  const team = await createTeam(api, 'Long feed', [
    { name: 'Writer', instructions: '/reply Drafted.' },
    { name: 'Reviewer', instructions: '/reply Looks good.' },
  ]);
  for (let i = 1; i <= 12; i++) await sendRequest(api, team, i % 2 ? 'Writer' : 'Reviewer', `Request ${i}`);
  await expect
    .poll(
      async () => {
        const res = await api.get(`/api/v1/teams/${team.id}/activity?limit=50`);
        const body = (await res.json()) as { jobs: Array<{ status: string }> };
        return body.jobs.filter((job) => job.status === 'completed').length;
      },
      { timeout: RESULT_TIMEOUT * 3 },
    )
    .toBe(12);

  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await openTeam(page, team.id);
    await expect(page.getByRole('article', { name: 'You → @Reviewer' })).toHaveCount(6);
    const { page: scrolls, content } = await page.evaluate(() => ({
      page: document.documentElement.scrollHeight,
      content: document.body.scrollHeight,
    }));
    expect(scrolls, `at ${width} px the page scrolls ${scrolls - content} px past its content`).toBeLessThanOrEqual(content + 1);
  }
});
