import type { APIRequestContext, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { openChat, PAGE_DATA } from './support/seed';

// Runs go through the embedded `scripted` model (and, for teams, the real scheduler); waits stay in seconds.
test.describe.configure({ timeout: 60_000 });
const RESULT = { timeout: 15_000 };

const composer = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

test('a loop-capped run says so in the conversation: the note, then "Completed (capped: loop)"', async ({ page, api }) => {
  await openChat(page, api, { name: 'Looper', toolGroups: ['utility'] });
  await composer(page).fill('/loop calculator {"expression":"1+1"}');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  // The framework's note is shown as a note in the history (never as the agent speaking), then the answer.
  await expect(history(page).getByText(/Loop limit reached: you called the same tool calls 3 times in a row\./)).toBeVisible(RESULT);
  await expect(history(page).getByText(/^Looper: done/)).toBeVisible();
  await expect(page.getByRole('status').getByText('Completed (capped: loop)', { exact: true })).toBeVisible();
});

test('a turn-capped run without an answer fails and says "Failed (capped: turns)"', async ({ page, api }) => {
  await openChat(page, api, { name: 'Short', toolGroups: ['utility'], maxTurns: 2 });
  await composer(page).fill('/call calculator {"expression":"1"}\n/call calculator {"expression":"2"}\n/reply never');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByText('Failed (capped: turns).', { exact: true })).toBeVisible(RESULT);
  await expect(page.getByText('Stopped after 2 model turns (max turns)').first()).toBeVisible();
});

async function seedTeam(api: APIRequestContext): Promise<{ id: string; members: Array<{ id: string; name: string }> }> {
  const agentIds: string[] = [];
  for (const [name, extra] of [
    ['Spinner', { toolGroups: ['utility'] }],
    ['Brief', { toolGroups: ['utility'], maxTurns: 1 }],
  ] as const) {
    const res = await api.post('/api/v1/agents', { data: { name, ...extra } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Capped crew', goal: 'Stop in time', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; members: Array<{ id: string; name: string }> };
}

test('a team card shows why its member run stopped early', async ({ page, api }) => {
  const team = await seedTeam(api);
  const byName = (name: string) => team.members.find((m) => m.name === name)!;
  for (const [member, text] of [
    ['Spinner', '/loop calculator {"expression":"2+2"}'],
    ['Brief', '/call calculator {"expression":"3"}\n/reply never'],
  ] as const) {
    const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [byName(member).id], text, draftKey: crypto.randomUUID() } });
    expect(res.status(), await res.text()).toBe(201);
  }
  await page.goto(`/teams/${team.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Capped crew' })).toBeVisible(PAGE_DATA);
  await expect(page.getByRole('article', { name: 'You → @Spinner' }).getByText('Completed (capped: loop)', { exact: true })).toBeVisible(RESULT);
  await expect(page.getByRole('article', { name: 'You → @Brief' }).getByText('Failed (capped: turns)', { exact: true })).toBeVisible(RESULT);
});

test('the agent form sets a token budget and who it may delegate to, with field errors one past each limit', async ({ page, api }) => {
  const helper = await api.post('/api/v1/agents', { data: { name: 'Helper' } });
  expect(helper.status(), await helper.text()).toBe(201);
  const helperId = ((await helper.json()) as { id: string }).id;
  await api.post('/api/v1/agents', { data: { name: 'Bystander' } });

  await page.goto('/agents/new');
  await page.getByLabel('Name').fill('Planner');
  const budget = page.getByLabel('Token budget per run');
  const depth = page.getByLabel('Delegation depth');
  const children = page.getByLabel('Helpers per run');
  const atOnce = page.getByLabel('Helpers at once');
  await budget.fill('10000001');
  await depth.fill('6');
  await children.fill('51');
  await atOnce.fill('65');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(budget).toHaveAttribute('aria-invalid', 'true');
  await expect(budget).toHaveAccessibleDescription(/Must be a whole number of tokens from 1,000 to 10,000,000/);
  await expect(depth).toHaveAccessibleDescription(/Must be a whole number from 1 to 5/);
  await expect(children).toHaveAccessibleDescription(/Must be a whole number from 1 to 50/);
  await expect(atOnce).toHaveAccessibleDescription(/Must be a whole number from 1 to 64/);

  // At the limits it saves; "Only the agents checked below" offers the owner's other agents.
  await budget.fill('10000000');
  await depth.fill('5');
  await children.fill('50');
  await atOnce.fill('64');
  const delegation = page.getByRole('group', { name: 'Agents it may delegate to' });
  await expect(delegation.getByRole('radio', { name: 'All your agents' })).toBeChecked();
  await delegation.getByRole('radio', { name: 'Only the agents checked below' }).check();
  await delegation.getByRole('checkbox', { name: 'Helper' }).check();
  await expect(delegation.getByRole('checkbox', { name: 'Bystander' })).not.toBeChecked();
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);

  const list = (await (await api.get('/api/v1/agents?query=Planner')).json()) as { agents: Array<Record<string, unknown>> };
  expect(list.agents[0]).toMatchObject({ tokenBudget: 10_000_000, allowedSubagents: [helperId], maxDepth: 5, maxChildren: 50, maxConcurrentChildren: 64 });
});
