import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import {
  FIRST_LOAD,
  RESULT_TIMEOUT,
  cancelFromCard,
  card,
  createTeam,
  expectLive,
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

test('a tool call waiting for approval is answered on its card like in the chat: Decline with a note by keyboard, then Approve, on a 390 px phone', async ({
  page,
  api,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const team = await createTeam(api, 'Numbers crew', [
    { name: 'Calculator', description: 'Does sums with approval', approvalTools: ['calculator'] },
    { name: 'Checker', description: 'Checks sums' },
  ]);
  // Two calls, one per model turn: each waits for its own answer on the same card.
  const jobId = await sendRequest(api, team, 'Calculator', '/call calculator {"expression":"6*7"}\n/call calculator {"expression":"2+2"}');
  const responses = recordActionCalls(page, ANSWER_KEY);
  await openTeam(page, team.id);

  const job = card(page, 'You → @Calculator');
  await expect(job.getByText('Needs input', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  const prompt = job.getByRole('region', { name: 'Approval needed: calculator' });
  await expect(prompt.getByRole('heading', { level: 4 })).toHaveText('Approval needed: calculator');
  await expect(prompt).toContainText('@Calculator wants to run this tool.');
  await expect(prompt).toContainText('"expression": "6*7"');
  // Nothing to hand-write: no JSON box, no raw payload.
  await expect(job.getByRole('textbox', { name: 'Response (JSON)' })).toHaveCount(0);
  await expect(job).not.toContainText('"type": "approval"');
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  const axe = await new AxeBuilder({ page }).include(`#job-${jobId}`).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // Decline from the keyboard, with a note. Each button names the call it answers.
  const note = prompt.getByRole('textbox', { name: 'Note (optional)' });
  await note.fill('Not that one');
  await note.press('Tab');
  await expect(prompt.getByRole('button', { name: 'Approve calculator {"expression":"6*7"}', exact: true })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(prompt.getByRole('button', { name: 'Decline calculator {"expression":"6*7"}', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  // The answered prompt goes away; the focus lands on the card's title (not the page), which says what happened.
  await expect(job.getByRole('heading', { level: 3, name: 'You → @Calculator' })).toBeFocused();
  await expect(job.getByRole('status').filter({ hasText: 'Declined. The request continues without that tool call.' })).toHaveCount(1);

  // The next call waits on the same card; a click approves it.
  await expect(prompt).toContainText('"expression": "2+2"', { timeout: RESULT_TIMEOUT });
  await expect(note).toHaveValue('');
  await prompt.getByRole('button', { name: 'Approve calculator {"expression":"2+2"}', exact: true }).click();
  await expect(job.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(prompt).toHaveCount(0);
  await expect(job).toContainText('[calculator] The person declined this calculator call, so it was not run. Their note: Not that one');
  await expect(job).toContainText('[calculator] 4');
  await expect(job).not.toContainText('[calculator] 42');
  // Each answer started a new run: the steps before the first answer are still there, beside those after.
  const before = job.getByRole('button', { name: 'Steps 1 of 3, before your answer' });
  await expect(job.getByRole('button', { name: /^Steps \d of 3/ })).toHaveCount(3);
  await before.click();
  await expect(job.getByRole('heading', { name: 'Steps of this job, part 1 of 3' })).toBeVisible();
  await expect(job.getByText('Waiting for approval: calculator').first()).toBeVisible({ timeout: RESULT_TIMEOUT });

  // The same value as the chat sends, through the team's respond action, each answer with its own key.
  expect(responses).toHaveLength(2);
  const [declined, approved] = responses.map((r) => actionArgs(r));
  expect(declined).toEqual([team.id, expect.any(String), { response: { approved: false, note: 'Not that one' }, answerKey: expect.any(String) }]);
  expect(approved).toEqual([team.id, expect.any(String), { response: { approved: true }, answerKey: expect.any(String) }]);
  expect((approved![2] as { answerKey: string }).answerKey).not.toBe((declined![2] as { answerKey: string }).answerKey);
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

test('"Delete team…" is refused while a request waits; after cancelling it returns to the team list', async ({
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
    await page.getByRole('menuitem', { name: 'Delete team…' }).click();
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

/** A team whose Calculator member waits for the person's approval of a sum; its member conversation's id. */
async function teamWaitingOnApproval(api: APIRequestContext, name: string) {
  const team = await createTeam(api, name, [
    { name: 'Calculator', description: 'Does sums with approval', approvalTools: ['calculator'] },
    { name: 'Checker', description: 'Checks sums' },
  ]);
  const jobId = await sendRequest(api, team, 'Calculator', '/call calculator {"expression":"6*7"}');
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/teams/${team.id}/activity?limit=50`)).json()) as { jobs: Array<{ id: string; status: string }> }).jobs.find((j) => j.id === jobId)?.status, { timeout: RESULT_TIMEOUT })
    .toBe('waiting_input');
  return { team, conversationId: team.members.find((m) => m.name === 'Calculator')!.conversationId };
}

test('a team request waiting on a member is answered on the team, not in the member’s conversation, which points there', async ({ page, api }) => {
  const { team, conversationId } = await teamWaitingOnApproval(api, 'Gated crew');
  // The member's own conversation, as the Members panel's "Open conversation" opens it.
  await page.goto(`/conversations/${conversationId}`);
  const notice = page.getByRole('region', { name: 'A team request waits here' });
  await expect(notice).toContainText('a request from the team “Gated crew”', FIRST_LOAD);
  // What must not happen: an answer given here, which would leave the team's request waiting for good.
  await expect(page.getByRole('button', { name: /^Approve/ })).toHaveCount(0);
  const box = page.getByRole('combobox', { name: 'Message', exact: true });
  await box.fill('/reply sideways');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'A team request waits on this conversation: answer it on the team’s page first.' })).toBeVisible();
  await expect(box).toHaveValue('/reply sideways');

  await notice.getByRole('link', { name: 'Answer on the team’s page' }).click();
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}$`), FIRST_LOAD);
  const job = card(page, 'You → @Calculator');
  await job.getByRole('region', { name: 'Approval needed: calculator' }).getByRole('button', { name: /^Approve/ }).click();
  await expect(job.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(job).toContainText('[calculator] 42');
});

test('Cancel all on the team takes a waiting approval out of the member’s open conversation, live, and offers no Approve for it', async ({
  page,
  context,
  api,
}) => {
  const { team, conversationId } = await teamWaitingOnApproval(api, 'Stopped crew');
  // The member's conversation stays open in one tab…
  await page.goto(`/conversations/${conversationId}`);
  await expect(page.getByRole('region', { name: 'A team request waits here' })).toBeVisible(FIRST_LOAD);
  await expectLive(page);

  // …while the person cancels everything on the team's page in another.
  const teamPage = await context.newPage();
  await openTeam(teamPage, team.id);
  await teamPage.getByRole('button', { name: 'Manage' }).click();
  await teamPage.getByRole('menuitem', { name: 'Cancel all unfinished requests…' }).click();
  await teamPage.getByRole('dialog').getByRole('button', { name: 'Cancel all', exact: true }).click();
  await expect(card(teamPage, 'You → @Calculator').getByText('Cancelled', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await teamPage.close();

  // The conversation, not reloaded, says the approval was cancelled and offers nothing to answer.
  await expect(page.getByRole('status').filter({ hasText: 'The approval of calculator was cancelled with its team request: nothing waits for your answer.' })).toBeVisible({
    timeout: RESULT_TIMEOUT,
  });
  await expect(page.getByRole('region', { name: 'A team request waits here' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Approval needed: calculator' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^(Approve|Decline)/ })).toHaveCount(0);
  // The conversation is the person's again.
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill('/reply mine again');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('log')).toContainText('mine again', { timeout: RESULT_TIMEOUT });
});
