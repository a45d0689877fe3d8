/**
 * Delegation (issue 10): a conversation turn whose agent split its work with `task` shows each child nested under
 * the call that started it — what it was asked, by which agent, its status and tokens — and the child's own steps.
 */
import crypto from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, createAgent } from './support/team-flows';

const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

/** Open a region's Steps panel and wait for its list. */
async function openSteps(scope: Locator): Promise<Locator> {
  const button = scope.getByRole('button', { name: 'Steps', exact: true });
  await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  const list = scope.getByRole('list', { name: 'Run steps' });
  await expect(list).toBeVisible({ timeout: RESULT_TIMEOUT });
  return list;
}

const task = (verb: '/call' | '/also', args: Record<string, unknown>) => `${verb} task ${JSON.stringify(args)}`;

test('a delegated turn shows its children nested under their task calls, each with its own steps', async ({ page, api }) => {
  test.setTimeout(60_000);
  const lead = await createAgent(api, { name: 'Lead', description: 'Splits the work' });
  const created = await api.post('/api/v1/conversations', { data: { agentId: lead.id } });
  expect(created.status(), await created.text()).toBe(201);
  const conversationId = ((await created.json()) as { id: string }).id;

  // Two children in one response (they run in parallel): one uses a tool, one just answers.
  const text = [
    task('/call', { description: 'Add the numbers', prompt: '/call calculator {"expression":"2+3"}\n/reply The sum is five\n/cite' }),
    task('/also', { description: 'Write a greeting', prompt: '/reply Hello from the second child' }),
  ].join('\n');
  const sent = await api.post(`/api/v1/conversations/${conversationId}/messages`, { data: { text, idempotencyKey: crypto.randomUUID() } });
  expect(sent.status(), await sent.text()).toBe(202);
  const runId = ((await sent.json()) as { run: { id: string } }).run.id;
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/runs/${runId}`)).json()) as { run: { status: string } }).run.status, { timeout: 20_000 })
    .toBe('success');

  await page.goto(`/conversations/${conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Lead' })).toBeVisible(FIRST_LOAD);
  const turn = history(page).getByRole('listitem').filter({ hasText: 'Add the numbers' }).first();
  const steps = await openSteps(turn);
  await expect(steps.getByText('Assistant called task, task', { exact: true })).toBeVisible();

  // Each child under its call: description, agent and provider, status, tokens.
  const adder = steps.getByRole('region', { name: 'Child: Add the numbers' });
  const greeter = steps.getByRole('region', { name: 'Child: Write a greeting' });
  await expect(adder.getByText('Add the numbers — Lead (spawn, depth 1)', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(adder.getByText('Completed', { exact: true })).toBeVisible();
  await expect(adder.getByText(/tokens in · [\d,]+ out · 2 model calls/)).toBeVisible();
  await expect(greeter.getByText('Completed', { exact: true })).toBeVisible();
  // The adder cited its calculator call: the citation is checked against its receipts, and what that proves is said.
  await expect(adder.getByRole('list', { name: 'Citations' }).getByText('[r1 calculator] resolved', { exact: true })).toBeVisible();
  await expect(adder.getByText(/not that what it claims is true/)).toBeVisible();

  // The child's own steps, read from its run: its calculator call and its answer; the sibling's stay closed.
  await adder.getByRole('button', { name: 'Child steps' }).click();
  const childSteps = adder.getByRole('list', { name: 'Steps of child: Add the numbers' });
  await expect(childSteps.getByText('Tool calculator returned', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(childSteps.getByText(/^The sum is five/)).toBeVisible();
  await expect(childSteps.getByText('Run completed', { exact: true })).toBeVisible();
  await expect(greeter.getByRole('list', { name: 'Steps of child: Write a greeting' })).toHaveCount(0);

  // The child's conversation is the framework's: it is not among the person's conversations.
  const list = (await (await api.get('/api/v1/conversations')).json()) as { conversations: Array<{ id: string }> };
  expect(list.conversations.map((c) => c.id)).toEqual([conversationId]);
});
