/**
 * Model costs (issue 26 item 8, ADR 048): the admin prices a model on the Admin page; a run of it shows its cost
 * beside its tokens once it finishes; a team with a budget in money stops taking work when its spend reaches it.
 */
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, card, createTeam, openTeam, sendRequest } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

const spend = (page: import('@playwright/test').Page) => page.getByRole('paragraph').filter({ hasText: /^Spend:/ });

test('an admin prices the scripted model; a job’s Steps show its cost; a team with a money budget stops at it', async ({ page, api, accounts, browser }) => {
  // The admin sets the price on the Admin page, as a person would; a value past the limit is refused at its field.
  const admin = await accounts.create('admin', { admin: true });
  const adminContext = await browser.newContext({ storageState: admin.storageState });
  const adminPage = await adminContext.newPage();
  await adminPage.goto('/admin');
  const prices = adminPage.getByRole('region', { name: 'Model prices' });
  const form = prices.getByRole('form', { name: /Set a model.s prices/ });
  await form.getByLabel('Model').fill('scripted');
  await form.getByLabel('Input, $ per 1M tokens').fill('1000.000001');
  await form.getByLabel('Output, $ per 1M tokens').fill('8');
  await form.getByRole('button', { name: 'Save prices' }).click();
  await expect(form.getByText('Must be from $0 to $1,000')).toBeVisible(FIRST_LOAD);
  await form.getByLabel('Input, $ per 1M tokens').fill('2');
  await form.getByRole('button', { name: 'Save prices' }).click();
  await expect(prices.getByRole('status')).toHaveText(/Saved the prices of scripted/);
  await expect(prices.getByRole('row', { name: /^scripted \$2\.00 \$8\.00/ })).toBeVisible();
  await adminContext.close();

  // The person's team gets a budget of one cent, in money, through the budget dialog.
  const team = await createTeam(api, `Priced crew ${crypto.randomUUID().slice(0, 4)}`, [
    { name: 'Spender', description: 'Uses tokens' },
    { name: 'Saver', description: 'Stands by' },
  ]);
  await openTeam(page, team.id);
  await page.getByRole('button', { name: 'Set budget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Team budget' });
  await dialog.getByRole('radio', { name: 'Money (US dollars)' }).check();
  await dialog.getByLabel('Budget in dollars').fill('0.001');
  await dialog.getByRole('button', { name: 'Save budget' }).click();
  await expect(dialog.getByText(/at most 2 decimal places/)).toBeVisible();
  await dialog.getByLabel('Budget in dollars').fill('0.01');
  await dialog.getByRole('button', { name: 'Save budget' }).click();
  await expect(dialog).toBeHidden();
  await expect(spend(page)).toHaveText('Spend: $0.00 / $0.01');

  // 10,000 tokens reported (7,500 in, 2,500 out) at $2 / $8 per million: $0.035, past the one-cent budget.
  await sendRequest(api, team, 'Spender', '/tokens 10000\n/reply priced work done');
  const job = card(page, 'You → @Spender');
  await expect(job.getByText('priced work done', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await job.getByRole('button', { name: 'Steps', exact: true }).click();
  await expect(job.getByText(/7,500 tokens in · 2,500 out · 1 model call · cost: \$0\.035/)).toBeVisible({ timeout: RESULT_TIMEOUT });

  // The header counts it, and the team says its budget is reached; a new request is refused with the reason.
  await expect(spend(page)).toHaveText('Spend: $0.035 / $0.01', { timeout: RESULT_TIMEOUT });
  const notice = page.getByRole('status', { name: 'Team budget' });
  await expect(notice).toContainText('Budget reached');
  await expect(notice).toContainText('spent $0.035 of its $0.01 budget');
  const refused = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [team.members[1]!.id], text: '/reply no', draftKey: crypto.randomUUID() },
  });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'team_budget_reached',
    message: expect.stringContaining('$0.035 of $0.01'),
  });
  // What must not happen: the refused request queued behind the budget.
  const activity = (await (await api.get(`/api/v1/teams/${team.id}/activity?limit=50`)).json()) as { jobs: unknown[] };
  expect(activity.jobs).toHaveLength(1);
});
