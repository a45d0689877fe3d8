import crypto from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { LIMITS } from '@/lib/limits';
import { startBatch } from './support/batch-api';
import { RESULT_TIMEOUT, createAgent, createTeam, sendRequest } from './support/team-flows';

// Runs go through the real scheduler and the scripted model; each wait below stays in seconds.
test.describe.configure({ timeout: 60_000 });

/** A chat of an agent that asks before running the calculator, stopped at that approval. */
async function chatWaitingForApproval(api: APIRequestContext, name: string, expression: string): Promise<string> {
  const agent = await createAgent(api, { name, toolGroups: ['utility'], approvalTools: ['calculator'] });
  const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, {
    data: { text: `/call calculator {"expression":"${expression}"}`, idempotencyKey: crypto.randomUUID() },
  });
  expect(sent.status(), await sent.text()).toBe(202);
  return id;
}

const inboxLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
const waitingList = (page: Page) => page.getByRole('list', { name: 'Waiting for you' });

test('the Inbox gathers a chat’s approval and a team member’s question with a count in the nav, answers by keyboard, and follows answers given elsewhere', async ({
  page,
  api,
}) => {
  const conversationId = await chatWaitingForApproval(api, 'Careful', '6*7');
  const team = await createTeam(api, 'Question crew', [
    { name: 'Research', description: 'Finds suppliers' },
    { name: 'Review', description: 'Checks the list' },
  ]);
  const jobId = await sendRequest(api, team, 'Research', '/ask Which supplier comes first?');

  await page.goto('/inbox');
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
  await expect(inboxLink(page, 'Inbox, 2 waiting').first()).toBeVisible({ timeout: RESULT_TIMEOUT });
  const items = waitingList(page).getByRole('listitem');
  await expect(items).toHaveCount(2, { timeout: RESULT_TIMEOUT });
  // Oldest first, each with where it waits and what is asked.
  await expect(items.nth(0)).toContainText('Chat with Careful');
  await expect(items.nth(0).getByRole('region', { name: 'Approval needed: calculator' })).toContainText('"expression": "6*7"');
  await expect(items.nth(1)).toContainText('@Research in team Question crew');
  await expect(items.nth(1)).toContainText('Which supplier comes first?');
  const axe = await new AxeBuilder({ page }).include('main').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // "?" lists the keys; Escape closes the dialog.
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toContainText('Approve the focused tool call');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();

  // Keys typed in a field are text: "j", "a" and "d" in the question's answer box neither move nor answer.
  const answerBox = items.nth(1).getByRole('textbox', { name: 'Your answer' });
  await answerBox.fill('');
  await answerBox.pressSequentially('jad');
  await expect(answerBox).toHaveValue('jad');
  await expect(items).toHaveCount(2);
  await answerBox.fill('');
  await answerBox.blur();

  // k moves up from the question (focused while typing its answer), j down, k up again; a approves the focused call.
  await page.keyboard.press('k');
  await expect(items.nth(0)).toBeFocused();
  await page.keyboard.press('j');
  await expect(items.nth(1)).toBeFocused();
  // d on a question declines nothing: it is not a tool call.
  await page.keyboard.press('d');
  await expect(items).toHaveCount(2);
  await page.keyboard.press('k');
  await expect(items.nth(0)).toBeFocused();
  await page.keyboard.press('a');
  await expect(items).toHaveCount(1, { timeout: RESULT_TIMEOUT });
  await expect(inboxLink(page, 'Inbox, 1 waiting').first()).toBeVisible({ timeout: RESULT_TIMEOUT });
  // The focus stays in the list, on the item now first (never the page's body).
  await expect(items.nth(0)).toBeFocused();
  // The approval reached the chat: the tool ran.
  await expect
    .poll(async () => JSON.stringify(await (await api.get(`/api/v1/conversations/${conversationId}`)).json()), { timeout: RESULT_TIMEOUT })
    .toContain('42');

  // Answered on the team's side (another tab, the API): the item leaves this page by push, without a reload.
  const answered = await api.post(`/api/v1/teams/${team.id}/jobs/${jobId}/respond`, { data: { answer: 'Acme', answerKey: crypto.randomUUID() } });
  expect(answered.status(), await answered.text()).toBe(200);
  await expect(page.getByText('Nothing needs you')).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(inboxLink(page, 'Inbox').first()).toBeVisible();
});

test('a chat’s question is answered in place: the answer becomes the chat’s next message and the item leaves', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Curious', toolGroups: ['clarify'] });
  const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
  const { id } = (await created.json()) as { id: string };
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text: '/ask Which colour, 红 or 🟦?', idempotencyKey: crypto.randomUUID() } });
  expect(sent.status(), await sent.text()).toBe(202);

  await page.goto('/inbox');
  const item = waitingList(page).getByRole('listitem');
  await expect(item).toHaveCount(1, { timeout: RESULT_TIMEOUT });
  await expect(item).toContainText('Which colour, 红 or 🟦?');
  await item.getByRole('textbox', { name: 'Your answer' }).fill('🟦 蓝色');
  await item.getByRole('button', { name: 'Send answer' }).click();
  await expect(page.getByText('Nothing needs you')).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect
    .poll(async () => JSON.stringify(await (await api.get(`/api/v1/conversations/${id}`)).json()), { timeout: RESULT_TIMEOUT })
    .toContain('Clarification accepted: 🟦 蓝色.');
});

test('each card’s link is named for what it opens, so a screen reader listing the links tells two cards of a kind apart', async ({ page, api }) => {
  // Two of each kind: two chats (an agent's name with markup, which stays text), two teams, two batches.
  const chats = [
    { id: await chatWaitingForApproval(api, 'Adder <b>&amp;</b>', '1+1'), agent: 'Adder <b>&amp;</b>' },
    { id: await chatWaitingForApproval(api, 'Doubler', '2*2'), agent: 'Doubler' },
  ];
  const teams = [
    await createTeam(api, 'North crew', [{ name: 'North scout' }, { name: 'North cook' }]),
    await createTeam(api, 'South crew', [{ name: 'South scout' }, { name: 'South cook' }]),
  ];
  await sendRequest(api, teams[0]!, 'North scout', '/ask Which pass?');
  await sendRequest(api, teams[1]!, 'South scout', '/ask Which ford?');
  const gate = await createAgent(api, { name: 'Gatekeeper', toolGroups: ['utility'], approvalTools: ['calculator'] });
  const batchOf = (expr: string) =>
    startBatch(api, { target: { agentId: gate.id }, template: '/call calculator {"expression":"{{expr}}"}', columns: ['expr'], items: [{ expr }], concurrency: 1 });
  const batches = [await batchOf('3+3'), await batchOf('4*4')];
  expect(batches[0]!.id.slice(0, 8)).not.toBe(batches[1]!.id.slice(0, 8));

  await page.goto('/inbox');
  const list = waitingList(page);
  await expect(list.getByRole('listitem')).toHaveCount(6, { timeout: RESULT_TIMEOUT });

  for (const chat of chats) {
    const { conversation } = (await (await api.get(`/api/v1/conversations/${chat.id}`)).json()) as { conversation: { title: string } };
    expect(conversation.title).not.toBe('');
    const link = list.getByRole('link', { name: `Open the chat with ${chat.agent} · ${conversation.title}`, exact: true });
    await expect(link).toHaveCount(1);
    await expect(link).toHaveAttribute('href', `/conversations/${chat.id}`);
  }
  for (const team of teams) {
    const link = list.getByRole('link', { name: `Open the team ${team.name}`, exact: true });
    await expect(link).toHaveCount(1);
    await expect(link).toHaveAttribute('href', `/teams/${team.id}?status=needs_input`);
  }
  for (const batch of batches) {
    const link = list.getByRole('link', { name: `Open the batch ${batch.id.slice(0, 8)}`, exact: true });
    await expect(link).toHaveCount(1);
    await expect(link).toHaveAttribute('href', `/batches/${batch.id}`);
  }
  // No link is left with only the shared words; the markup in the agent's name was never rendered as HTML.
  for (const shared of ['Open the chat', 'Open the team', 'Open the batch']) await expect(list.getByRole('link', { name: shared, exact: true })).toHaveCount(0);
  await expect(list.locator('b')).toHaveCount(0);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test('taps only: select two approvals and approve them at once from the menu’s Inbox', async ({ page, api }) => {
    await chatWaitingForApproval(api, 'Adder', '1+1');
    await chatWaitingForApproval(api, 'Doubler', '2*2');
    await page.goto('/agents');
    await page.getByRole('button', { name: 'Open menu' }).tap();
    await inboxLink(page, 'Inbox, 2 waiting').last().tap({ timeout: RESULT_TIMEOUT });
    await expect(page).toHaveURL(/\/inbox$/);
    const items = waitingList(page).getByRole('listitem');
    await expect(items).toHaveCount(2, { timeout: RESULT_TIMEOUT });
    const overflow = await measureHorizontalOverflow(page);
    expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
    await page.getByRole('checkbox', { name: 'Select calculator for Adder' }).tap();
    await page.getByRole('checkbox', { name: 'Select calculator for Doubler' }).tap();
    await expect(page.getByText('2 selected')).toBeVisible();
    await page.getByRole('button', { name: 'Approve selected' }).tap();
    await expect(page.getByText('Nothing needs you')).toBeVisible({ timeout: RESULT_TIMEOUT });
    // What must not happen: a control reachable only by hovering (every control above was tapped), or a failure listed.
    await expect(page.getByText('Not answered:')).toHaveCount(0);
  });

  test('a batch item’s field with a column name at its limit and no spaces keeps its value readable beside it', async ({ page, api }) => {
    // 64 characters, the column name's limit, without a place to break: it took the row's whole width and left its
    // value 0 px wide. What must not happen: a value squeezed to nothing, or the card running off the screen.
    const column = 'x'.repeat(LIMITS.batch.column.maxChars);
    const gate = await createAgent(api, { name: 'Gatekeeper', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await startBatch(api, { target: { agentId: gate.id }, template: `/call calculator {"expression":"{{${column}}}"}`, columns: [column], items: [{ [column]: '6*7' }], concurrency: 1 });
    await page.goto('/inbox');
    const fields = page.getByRole('definition');
    await expect(fields).toHaveCount(1, { timeout: RESULT_TIMEOUT });
    await expect(fields).toHaveText('6*7');
    const value = await fields.boundingBox();
    const name = await page.getByRole('term').boundingBox();
    expect(value!.width).toBeGreaterThanOrEqual(40);
    expect(name!.width).toBeLessThanOrEqual(390 * 0.4);
    const overflow = await measureHorizontalOverflow(page);
    expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  });

  test('no keyboard shortcuts are offered on a phone, where there is no keyboard; a desktop width offers them', async ({ page, api }) => {
    await chatWaitingForApproval(api, 'Tapper', '3*3');
    await page.goto('/inbox');
    await expect(waitingList(page).getByRole('listitem')).toHaveCount(1, { timeout: RESULT_TIMEOUT });
    await expect(page.getByText('1 waiting, oldest first.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Keyboard shortcuts' })).toHaveCount(0);
    await expect(page.getByText('for keyboard shortcuts', { exact: false })).toBeHidden();

    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByRole('button', { name: 'Keyboard shortcuts' })).toBeVisible();
    await expect(page.getByText('1 waiting, oldest first. Press ? for keyboard shortcuts.')).toBeVisible();
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  });
});
