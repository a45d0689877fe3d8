import { expect, test } from './fixtures';
import {
  FIRST_LOAD,
  RESULT_TIMEOUT,
  cancelFromCard,
  card,
  composer,
  createTeam,
  openTeam,
  sendRequest,
} from './support/team-flows';
import { actionArgs, recordActionCalls } from './support/server-actions';

// Each test creates its own account and runs agents through the real scheduler; on a busy two-core machine that
// needs more than the default 30 s per test, while every single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });

// Answers to waiting jobs (clarifications and interrupts) go through the respond server action, whose arguments
// carry the answerKey.
const ANSWER_KEY = 'answerKey';

// The clarification round trip itself ("Needs input", answer, completed) is in teams.spec.ts.

test('an approval interrupt shows its payload and takes JSON; invalid JSON is refused with the text kept', async ({
  page,
  api,
}) => {
  const team = await createTeam(api, 'Numbers crew', [
    { name: 'Calculator', description: 'Does sums with approval', approvalTools: ['calculator'] },
    { name: 'Checker', description: 'Checks sums' },
  ]);
  const responses = recordActionCalls(page, ANSWER_KEY);
  await openTeam(page, team.id);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Calculator' }).click();
  await composer(page).fill('/call calculator {"expression":"6*7"}');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const job = card(page, 'You → @Calculator');
  await expect(job.getByText('Needs input', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  // The interrupt payload is shown as formatted JSON (a <pre> has no role of its own).
  const payload = job.locator('pre');
  await expect(payload).toContainText('"tool": "calculator"');
  await expect(payload).toContainText('"expression": "6*7"');
  const response = job.getByRole('textbox', { name: 'Response (JSON)' });
  await expect(job.getByRole('textbox', { name: 'Your answer' })).toHaveCount(0);

  // Not JSON: refused in the browser, nothing sent, the typed text kept.
  await response.fill('{approved: true}');
  await job.getByRole('button', { name: 'Send response' }).click();
  await expect(job.getByRole('alert')).toContainText('Not valid JSON');
  await expect(response).toHaveValue('{approved: true}');
  await expect(response).toHaveAttribute('aria-invalid', 'true');
  expect(responses).toHaveLength(0);

  await response.fill('{"approved": true}');
  await expect(job.getByRole('alert')).toHaveCount(0);
  await job.getByRole('button', { name: 'Send response' }).click();
  await expect(job.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(job).toContainText('[calculator] 42');
  await expect(response).toHaveCount(0);
  expect(responses).toHaveLength(1);
  expect(actionArgs(responses[0]!)).toEqual([team.id, expect.any(String), { response: { approved: true }, answerKey: expect.any(String) }]);
});

test('a reload reopens the same team with its feed, and a waiting question can still be answered', async ({ page, api }) => {
  const team = await createTeam(api, 'Launch crew', [
    { name: 'Writer', description: 'Drafts text' },
    { name: 'Reviewer', description: 'Checks drafts' },
  ]);
  await sendRequest(api, team, 'Reviewer', '/reply Looks good');
  await sendRequest(api, team, 'Writer', '/ask Which tone should I use?');
  const responses = recordActionCalls(page, ANSWER_KEY);
  await openTeam(page, team.id);

  const reviewed = card(page, 'You → @Reviewer');
  const asking = card(page, 'You → @Writer');
  await expect(reviewed.getByText('Looks good', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(asking.getByText('Which tone should I use?', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  // An answer over the limit is refused in the browser with the text kept and nothing sent.
  const answer = asking.getByRole('textbox', { name: 'Your answer' });
  const tooLong = 'a'.repeat(4001);
  await answer.fill(tooLong);
  await expect(asking.getByText('4,001 / 4,000 characters · 4,001 / 8,000 bytes')).toBeVisible();
  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect(asking.getByRole('alert')).toContainText('Answer is too long');
  await expect(answer).toHaveValue(tooLong);
  expect(responses).toHaveLength(0);

  await page.reload();
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Launch crew' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('status').filter({ hasText: /^Live$/ })).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('article', { name: /→/ })).toHaveCount(2);
  await expect(reviewed.getByText('Looks good', { exact: true })).toBeVisible();
  await expect(reviewed.getByText('Completed', { exact: true })).toBeVisible();
  await expect(asking.getByText('Needs input', { exact: true })).toBeVisible();
  await expect(asking.getByText('Which tone should I use?', { exact: true })).toBeVisible();

  // The reopened feed is live: answering from it completes the request.
  await answer.fill('Friendly and brief');
  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect(asking).toContainText('Clarification accepted: Friendly and brief', { timeout: RESULT_TIMEOUT });
  await expect(asking.getByText('Completed', { exact: true })).toBeVisible();
  expect(responses).toHaveLength(1);
});

test('"Delete finished team" is refused while a request waits; after cancelling it returns to the team list', async ({
  page,
  api,
}) => {
  const team = await createTeam(api, 'Temporary crew', [
    { name: 'Writer', description: 'Drafts text' },
    { name: 'Reviewer', description: 'Checks drafts' },
  ]);
  await sendRequest(api, team, 'Writer', '/ask Which tone should I use?');
  await openTeam(page, team.id);
  const asking = card(page, 'You → @Writer');
  await expect(asking.getByText('Needs input', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  // Headless UI's dialog element is a zero-size wrapper around fixed-position content, so Playwright never calls
  // it visible: its presence and its buttons are what the test checks.
  const confirm = page.getByRole('dialog', { name: 'Delete “Temporary crew”?' });
  const chooseDelete = async () => {
    await page.getByRole('button', { name: 'Manage' }).click();
    await page.getByRole('menuitem', { name: 'Delete finished team' }).click();
    await expect(confirm.getByRole('button', { name: 'Delete team' })).toBeVisible();
  };

  await chooseDelete();
  await confirm.getByRole('button', { name: 'Delete team' }).click();
  await expect(confirm.getByRole('alert')).toHaveText('Cancel or complete pending requests first');
  await confirm.getByRole('button', { name: 'Keep team' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}$`));

  await cancelFromCard(asking);
  await expect(asking.getByText('Cancelled', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  await chooseDelete();
  await expect(confirm.getByRole('alert')).toHaveCount(0);
  await confirm.getByRole('button', { name: 'Delete team' }).click();
  await expect(page).toHaveURL(/\/teams$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Teams' })).toBeVisible();
  await expect(page.getByText('No teams yet', { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: /Temporary crew/ })).toHaveCount(0);

  expect((await api.get(`/api/v1/teams/${team.id}`)).status()).toBe(404);
  // The member conversations stay available.
  for (const m of team.members) {
    expect(m.conversationId).toBeTruthy();
    expect((await api.get(`/api/v1/conversations/${m.conversationId}`)).status(), m.name).toBe(200);
  }
});
