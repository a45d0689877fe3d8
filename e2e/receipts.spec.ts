import type { APIRequestContext } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';

// Agent runs go through the real scheduler with the embedded `scripted` model; on a busy machine a result takes a
// moment, every single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });
const RESULT_TIMEOUT = 15_000;

type Team = { id: string; members: Array<{ id: string; name: string }> };

async function seedTeam(api: APIRequestContext): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Counter', 'Checker']) {
    const res = await api.post('/api/v1/agents', { data: { name, toolGroups: ['utility'] } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Receipts crew', goal: 'Count carefully', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

test('a team card marks a resolved and an unresolved citation and says what resolved means', async ({ page, api }) => {
  const team = await seedTeam(api);
  const counter = team.members.find((m) => m.name === 'Counter')!;
  // One real calculator call (r1); the answer also cites a call that never happened (r2).
  const text = '/call calculator {"expression":"6*7"}\n/reply The answer is 42 [r1 calculator], double-checked [r2 calculator]';
  const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [counter.id], text, draftKey: crypto.randomUUID() } });
  expect(res.status(), await res.text()).toBe(201);

  await page.goto(`/teams/${team.id}`);
  const card = page.getByRole('article', { name: 'You → @Counter' });
  await expect(card.getByText('The answer is 42 [r1 calculator], double-checked [r2 calculator]', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  const citations = card.getByRole('list', { name: 'Citations' });
  await expect(citations.getByRole('listitem')).toHaveText(['✓[r1 calculator]resolved', '?[r2 calculator]not resolved']);
  // The explanation is on screen and is the list's accessible description (screen readers hear it with the list).
  const explanation = 'Resolved = the call happened, not that the claim is true. Not resolved = this run made no such call.';
  await expect(card.getByText(explanation)).toBeVisible();
  await expect(citations).toHaveAccessibleDescription(explanation);

  // The ledger behind it, as the API gives it to the owner.
  const activity = await api.get(`/api/v1/teams/${team.id}/activity?details=1`);
  const job = ((await activity.json()) as { jobs: Array<{ run: { id: string } | null; citations?: unknown }> }).jobs[0]!;
  expect(job.citations).toEqual([
    { id: 'r1', tool: 'calculator', resolved: true },
    { id: 'r2', tool: 'calculator', resolved: false },
  ]);
  const receipts = await api.get(`/api/v1/runs/${job.run!.id}/receipts`);
  expect(await receipts.json()).toEqual({ runId: job.run!.id, receipts: [{ id: 'r1', tool: 'calculator', status: 'ok' }] });
});
