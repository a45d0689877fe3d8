import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { createConversation, PAGE_DATA } from './support/seed';

// Compaction (docs/decisions/016-compaction.md): the agent's threshold in the form, and a compacted conversation
// showing its summary where it was made.
const REPLY = { timeout: 10_000 };
const composer = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const entries = (page: Page) => history(page).locator(':scope > ol > li');

test('the agent form sets "Compact after (tokens)" within its range; empty is the default', async ({ page, api }) => {
  test.setTimeout(45_000);
  await page.goto('/agents/new');
  await expect(page.getByRole('heading', { level: 1, name: 'New agent' })).toBeVisible(PAGE_DATA);
  const field = page.getByLabel('Compact after (tokens)');
  await expect(field).toHaveValue('');
  await expect(field).toHaveAccessibleDescription(/1,000–1,000,000\. Once what the model receives passes this size/);

  await page.getByLabel('Name').fill('Summarizer');
  await field.fill('999');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(field).toHaveAccessibleDescription(/Must be a whole number of tokens from 1,000 to 1,000,000/);
  await field.fill('1000');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);

  const { agents } = (await (await api.get('/api/v1/agents')).json()) as { agents: Array<{ id: string; name: string; compactAtTokens: number | null }> };
  const agent = agents.find((a) => a.name === 'Summarizer')!;
  expect(agent.compactAtTokens).toBe(1_000);

  // Editing shows it; clearing the field goes back to the default.
  await page.goto(`/agents/${agent.id}/edit`);
  await expect(page.getByLabel('Compact after (tokens)')).toHaveValue('1000', PAGE_DATA);
  await page.getByLabel('Compact after (tokens)').fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/agents/${agent.id}`)).json()) as { compactAtTokens: number | null }).compactAtTokens, PAGE_DATA)
    .toBeNull();
});

test('a compacted conversation keeps every message and shows the summary where it was made, labelled as the framework’s', async ({ page, api }) => {
  test.setTimeout(45_000);
  const res = await api.post('/api/v1/agents', { data: { name: 'Long talker', compactAtTokens: 1_000 } });
  expect(res.status(), await res.text()).toBe(201);
  const agent = (await res.json()) as { id: string };
  const { id } = await createConversation(api, agent.id);
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Long talker' })).toBeVisible(PAGE_DATA);

  // About 400 tokens, then about 500: together with the reply and the system prompt, past 1,000.
  await composer(page).fill('alpha '.repeat(267).trim());
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(entries(page)).toHaveCount(2, REPLY);
  await composer(page).fill('omega '.repeat(334).trim());
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(entries(page)).toHaveCount(5, REPLY);

  const summary = entries(page).nth(2);
  await expect(summary).toContainText('framework · earlier turns summarized');
  await expect(summary).toContainText('Summary of 2 earlier messages:');
  await expect(entries(page).nth(0)).toContainText('alpha alpha');
  await expect(entries(page).nth(3)).toContainText('omega omega');
  await page.reload();
  await expect(entries(page)).toHaveCount(5, PAGE_DATA);
  await expect(entries(page).nth(2)).toContainText('Summary of 2 earlier messages:');
});
