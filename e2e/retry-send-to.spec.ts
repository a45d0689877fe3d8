import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, createTeam, expectLive, sendRequest } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

/**
 * A member's failed request can be retried or sent to another member, but never back to the member that sent it
 * (the server refuses that): "Send to…" offers only members it can go to.
 */
test('"Send to…" on a member’s failed request offers neither its recipient nor its sender, and the retry goes through', async ({ page, api }) => {
  const team = await createTeam(api, 'Relay crew', [
    { name: 'Asker' },
    { name: 'Failer', instructions: '/fail Boom 💥' },
    { name: 'Backup', instructions: '/reply Backup did it' },
  ]);
  await sendRequest(api, team, 'Asker', `/call send_member ${JSON.stringify({ member: 'Failer', text: 'Do it', request_id: 'r1' })}`);
  await page.goto(`/teams/${team.id}?status=failed`);
  await expectLive(page);
  const failed = page.getByRole('article', { name: 'Asker → @Failer' });
  await expect(failed.getByText('Error: Boom 💥')).toBeVisible({ timeout: RESULT_TIMEOUT });

  await failed.getByRole('button', { name: 'Send to…' }).click();
  await expect(failed.getByRole('menuitem')).toHaveText(['@Backup']);
  await failed.getByRole('menuitem', { name: '@Backup' }).click();
  await expect(failed.getByRole('alert')).toHaveCount(0);

  await page.goto(`/teams/${team.id}`);
  await expectLive(page);
  const retried = page.getByRole('article', { name: 'Asker → @Backup' });
  await expect(retried.getByText('Backup did it')).toBeVisible({ timeout: RESULT_TIMEOUT });
});
