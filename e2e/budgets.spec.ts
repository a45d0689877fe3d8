import type { APIRequestContext, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { FIRST_LOAD } from './support/team-flows';

// Agent runs go through the real scheduler with the embedded `scripted` model on a busy two-core machine.
test.describe.configure({ timeout: 60_000 });
const RESULT_TIMEOUT = 15_000;

/** The header's token usage: plain text with a screen-reader prefix, not a live region (see below). */
const usage = (page: Page) => page.getByRole('paragraph').filter({ hasText: /^Token usage:/ });

type Team = { id: string; members: Array<{ id: string; name: string }> };
type Job = { id: string; status: string; result?: string | null };

async function teamWithBudget(api: APIRequestContext, tokenBudget: number | null): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Researcher', 'Writer']) {
    const res = await api.post('/api/v1/agents', { data: { name, description: 'Helps' } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Budgeted crew', goal: 'Ship', agentIds, tokenBudget } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

async function send(api: APIRequestContext, team: Team, memberId: string, text: string): Promise<string> {
  const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [memberId], text, draftKey: crypto.randomUUID() } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { jobs: Job[] }).jobs[0]!.id;
}

const jobStatus = async (api: APIRequestContext, teamId: string, jobId: string) => {
  const res = await api.get(`/api/v1/teams/${teamId}/activity?limit=50`);
  const body = (await res.json()) as { jobs: Job[] };
  return body.jobs.find((j) => j.id === jobId)?.status;
};

test('a team at its budget says "Budget reached", holds its queued work, and raising the budget lets it run', async ({ page, api }) => {
  const team = await teamWithBudget(api, 1_000);
  const member = team.members[0]!;
  // ~2,400 characters of reply: the scripted model reports about 600 output tokens plus the input, past 1,000. It
  // sleeps first so the second request is accepted while the budget still has room.
  const big = await send(api, team, member.id, `/sleep 3000\n/reply ${'budget '.repeat(340)}`);
  // Same member: it waits behind the first, and by the time that one ends the budget is used up.
  const held = await send(api, team, member.id, '/reply second done');
  await expect.poll(() => jobStatus(api, team.id, big), { timeout: RESULT_TIMEOUT }).toBe('completed');

  await page.goto(`/teams/${team.id}`);
  const notice = page.getByRole('status', { name: 'Team budget' });
  await expect(notice).toContainText('Budget reached', FIRST_LOAD);
  await expect(usage(page)).toHaveText(/^Token usage: [\d,]+ \/ 1,000 tokens$/);
  // What must not happen: the held request running while the budget is used up.
  expect(await jobStatus(api, team.id, held)).toBe('queued');
  // A new request from the person is refused with a clear reason.
  const refused = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [member.id], text: '/reply no', draftKey: crypto.randomUUID() } });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('team_budget_reached');

  // Sending from the composer, as a person would, says why nothing was sent and keeps the text.
  const box = page.getByRole('combobox', { name: 'Message to team' });
  await box.click();
  await box.pressSequentially('@Res');
  await box.press('Enter');
  await page.keyboard.insertText('One more, please');
  await box.press('ControlOrMeta+Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Raise the budget to send new requests' })).toBeVisible();
  await expect(box).toHaveValue('One more, please');

  await notice.getByRole('button', { name: 'Raise budget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Team budget' });
  await dialog.getByLabel('Token budget').fill('999');
  await dialog.getByRole('button', { name: 'Save budget' }).click();
  await expect(dialog.getByText('Must be at least 1,000 tokens')).toBeVisible();
  await dialog.getByLabel('Token budget').fill('100,000');
  await dialog.getByRole('button', { name: 'Save budget' }).click();
  await expect(dialog).toBeHidden();
  await expect(usage(page)).toHaveText(/^Token usage: [\d,]+ \/ 100,000 tokens$/);
  await expect(page.getByText('Budget reached')).toHaveCount(0);
  // The held request runs now, and its result reaches the feed.
  await expect(page.getByText('second done').first()).toBeVisible({ timeout: RESULT_TIMEOUT });
  expect(await jobStatus(api, team.id, held)).toBe('completed');
});

test('the header shows used / budget, warns from 80 %, and the budget can be set and removed', async ({ page, api }) => {
  const team = await teamWithBudget(api, null);
  await page.goto(`/teams/${team.id}`);
  await expect(usage(page)).toHaveText('Token usage: 0 tokens', FIRST_LOAD);

  // About 3,000 characters of reply: well over 850 tokens, so a budget of usage ÷ 0.85 is within the allowed range.
  const job = await send(api, team, team.members[1]!.id, `/reply ${'w '.repeat(1_500)}`);
  await expect.poll(() => jobStatus(api, team.id, job), { timeout: RESULT_TIMEOUT }).toBe('completed');
  const used = ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { tokensUsed: number }).tokensUsed;
  const n = (v: number) => v.toLocaleString('en-US');
  await expect(usage(page)).toHaveText(`Token usage: ${n(used)} tokens`, { timeout: RESULT_TIMEOUT });
  // What must not happen: a screen reader reading the figure out after every finished run.
  await expect(usage(page).locator('xpath=ancestor-or-self::*[@role="status" or @aria-live="polite" or @aria-live="assertive"]')).toHaveCount(0);
  await expect(page.getByRole('status', { name: 'Team budget' })).toHaveCount(0);

  // 85 % used: the warning, not the hold.
  const budget = Math.ceil(used / 0.85);
  await page.getByRole('button', { name: 'Set budget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Team budget' });
  await dialog.getByLabel('Token budget').fill(String(budget));
  await dialog.getByRole('button', { name: 'Save budget' }).click();
  await expect(usage(page)).toHaveText(`Token usage: ${n(used)} / ${n(budget)} tokens`);
  await expect(page.getByRole('status', { name: 'Team budget' })).toContainText('Budget almost used');
  await expect(page.getByText('Budget reached')).toHaveCount(0);

  await page.getByRole('button', { name: 'Change budget' }).click();
  await page.getByRole('dialog', { name: 'Team budget' }).getByRole('button', { name: 'Remove budget' }).click();
  await expect(usage(page)).toHaveText(`Token usage: ${n(used)} tokens`);
  await expect(page.getByRole('status', { name: 'Team budget' })).toHaveCount(0);
});
