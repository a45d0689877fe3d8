import type { Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import crypto from 'node:crypto';
import { conversationDetail, createAgent, createConversation, luminanceOf, openChat, PAGE_DATA, rootScrollsSideways } from './support/seed';

// A run goes through the runs service and the embedded `scripted` model; the page hears of it by push (its event stream).
const REPLY = { timeout: 10_000 };
const BUSY = 'The agent is still working on the previous message.';

const composer = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
/** The history's entries (user messages and agent turns), oldest first. */
const entries = (page: Page) => history(page).locator(':scope > ol > li');
const toolCall = (page: Page, tool: string) => history(page).locator('details').filter({ hasText: `Tool call: ${tool}` });

test('Chat from the agent list: send with the button and with Ctrl+Enter, see the scripted replies, reload keeps them', async ({
  page,
  api,
}) => {
  // Two full runs, a reload and a navigation: about 10 s on a quiet machine, over 30 s on a very busy one.
  test.setTimeout(45_000);
  await createAgent(api, { name: 'Helper', description: 'Answers questions' });
  await page.goto('/agents');
  await expect(page.getByRole('button', { name: 'Chat with Helper' })).toBeVisible(PAGE_DATA);
  await page.getByRole('button', { name: 'Chat with Helper' }).click();
  await expect(page).toHaveURL(/\/conversations\/[^/]+$/, PAGE_DATA);
  await expect(page.getByRole('heading', { level: 1, name: 'Helper' })).toBeVisible(PAGE_DATA);
  await expect(history(page)).toContainText('No messages yet. Write to Helper below.');

  await composer(page).fill('Hi there\n/reply Hello from the test');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(history(page).getByText('Hello from the test', { exact: true })).toBeVisible(REPLY);
  await expect(composer(page)).toHaveValue('');

  // Enter is a newline; Ctrl+Enter sends.
  await composer(page).fill('Two lines');
  await composer(page).press('Enter');
  await composer(page).pressSequentially('/reply Second answer');
  await expect(composer(page)).toHaveValue('Two lines\n/reply Second answer');
  await expect(entries(page)).toHaveCount(2);
  await composer(page).press('Control+Enter');
  await expect(history(page).getByText('Second answer', { exact: true })).toBeVisible(REPLY);
  await expect(composer(page)).toHaveValue('');

  const expected = [
    /^You\s*Hi there\s+\/reply Hello from the test\s*Steps$/,
    /^Helper\s*Hello from the test$/,
    /^You\s*Two lines\s+\/reply Second answer\s*Steps$/,
    /^Helper\s*Second answer$/,
  ];
  await expect(entries(page)).toHaveText(expected);
  await page.reload();
  await expect(entries(page)).toHaveText(expected, PAGE_DATA);
  await expect(page.getByRole('status').filter({ hasText: 'Running' })).toHaveCount(0);
});

test('a slow run shows Running with Cancel; Cancel stops it and the conversation takes the next message', async ({ page, api }) => {
  const { conversationId } = await openChat(page, api, { name: 'Sleeper' });

  await composer(page).fill('/sleep 5000\n/reply too late');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const running = page.getByRole('status').filter({ hasText: 'Running…' });
  await expect(running).toBeVisible();
  const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
  await expect(cancel).toBeVisible();

  // While it runs, the composer refuses another message and keeps it.
  await composer(page).fill('/reply after the cancel');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: BUSY })).toBeVisible();
  await expect(composer(page)).toHaveValue('/reply after the cancel');

  await cancel.click();
  await expect(page.getByText('Cancelled', { exact: true })).toBeVisible();
  await expect(running).toHaveCount(0);
  await expect(cancel).toHaveCount(0);
  const afterCancel = await conversationDetail(api, conversationId);
  expect(afterCancel.run?.status).toBe('cancelled');
  const cancelledRunId = afterCancel.run!.id;

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(history(page).getByText('after the cancel', { exact: true })).toBeVisible(REPLY);
  // The cancelled run never answered: only the person's own message mentions "too late".
  await expect(history(page).getByText('too late', { exact: true })).toHaveCount(0);
  await expect(entries(page)).toHaveText([/^You\s*\/sleep 5000\s+\/reply too late\s*Steps$/, /^You\s*\/reply after the cancel\s*Steps$/, /^Sleeper\s*after the cancel$/]);
  const runRes = await api.get(`/api/v1/runs/${cancelledRunId}`);
  expect(((await runRes.json()) as { run: { status: string } }).run.status).toBe('cancelled');
  const finalState = await conversationDetail(api, conversationId);
  expect(finalState.messages.filter((m) => m.role === 'assistant').map((m) => m.text)).toEqual(['after the cancel']);
});

test('a tool call shows as a collapsed entry that opens to its arguments and result', async ({ page, api }) => {
  await openChat(page, api, { name: 'Calc' });
  await composer(page).fill('What is 2+3?\n/call calculator {"expression":"2+3"}');
  await composer(page).press('Control+Enter');
  await expect(history(page)).toContainText('[calculator] 5', REPLY);
  await expect(history(page).getByText(/^Calc: done/)).toBeVisible();

  const call = toolCall(page, 'calculator');
  await expect(call).toHaveCount(1);
  await expect(call.locator('summary')).toContainText('{"expression":"2+3"}');
  await expect(call.locator('summary')).toContainText('Result');
  await expect(call).not.toHaveAttribute('open');
  await expect(call.getByText('Arguments')).toBeHidden();

  await call.locator('summary').click();
  await expect(call).toHaveAttribute('open');
  const [args, result] = [call.locator('pre').nth(0), call.locator('pre').nth(1)];
  await expect(args).toHaveText('{ "expression": "2+3" }');
  await expect(result).toHaveText('5');

  // The keyboard closes it again.
  await call.locator('summary').press('Enter');
  await expect(call).not.toHaveAttribute('open');
  await expect(result).toBeHidden();
});

test('a tool call that fails is marked Failed in red, not a green Result', async ({ page, api }) => {
  await openChat(page, api, { name: 'Calc' });
  await composer(page).fill('/call calculator {"expression":"abc+"}');
  await composer(page).press('Control+Enter');
  const call = toolCall(page, 'calculator');
  const badge = call.locator('summary').getByText(/^(Failed|Result|No result yet)$/);
  await expect(badge).toHaveText('Failed', REPLY);
  // The outcome is in the word and in the colour (a red badge, not the success green).
  expect(await badge.evaluate((el) => el.className)).toMatch(/\bbg-red-/);
  await call.locator('summary').click();
  await expect(call.locator('pre').nth(1)).toContainText('Error');
});

test('an approval-gated tool waits for Approve, and Decline skips the tool with the note', async ({ page, api }) => {
  const { conversationId } = await openChat(page, api, { name: 'Careful', approvalTools: ['calculator'] });

  await composer(page).fill('/call calculator {"expression":"2+3"}');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const prompt = page.getByRole('region', { name: 'Approval needed: calculator' });
  await expect(prompt).toBeVisible(REPLY);
  await expect(prompt).toContainText('"expression": "2+3"');
  await expect(toolCall(page, 'calculator').locator('summary')).toContainText('Needs approval');
  expect((await conversationDetail(api, conversationId)).run?.status).toBe('interrupted');

  // Nothing else can be sent while it waits.
  await composer(page).fill('/reply skip ahead');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Approve or decline the tool call above first.' })).toBeVisible();
  await composer(page).fill('');

  // From the keyboard: the answered prompt goes, and the focus moves to the composer, never to the page.
  await prompt.getByRole('button', { name: 'Approve' }).focus();
  await page.keyboard.press('Enter');
  await expect(prompt).toBeHidden(REPLY);
  await expect(composer(page)).toBeFocused();
  await expect(history(page)).toContainText('[calculator] 5', REPLY);
  await expect(toolCall(page, 'calculator').locator('summary')).toContainText('Result');
  expect((await conversationDetail(api, conversationId)).run?.status).toBe('success');

  await composer(page).fill('/call calculator {"expression":"6*7"}');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(prompt).toBeVisible(REPLY);
  await expect(prompt).toContainText('"expression": "6*7"');
  await prompt.getByLabel('Note (optional)').fill('Not now');
  await prompt.getByRole('button', { name: 'Decline' }).click();
  await expect(prompt).toBeHidden(REPLY);
  await expect(history(page)).toContainText('[calculator] The person declined this calculator call, so it was not run. Their note: Not now', REPLY);
  await expect(history(page)).not.toContainText('[calculator] 42');
  await expect(toolCall(page, 'calculator')).toHaveCount(2);
  // The declined call did not run: it reads Declined, not Result (nor Failed: the tool did not fail).
  await expect(toolCall(page, 'calculator').nth(1).locator('summary')).toContainText('Declined');
  await expect(toolCall(page, 'calculator').nth(0).locator('summary')).toContainText('Result');
});

test('the chat at 390×844 in dark mode: dark colours, long text and an open tool call fit the width', async ({ page, api }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'light' });
  await openChat(page, api, { name: 'Phone chat' });
  await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).click();
  await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);

  const longWord = 'y'.repeat(300);
  await composer(page).fill(`${longWord}\n/call calculator {"expression":"${'1+'.repeat(40)}1"}\n/reply ${'z'.repeat(300)}`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(history(page).getByText('z'.repeat(300), { exact: true })).toBeVisible(REPLY);
  const call = toolCall(page, 'calculator');
  await call.locator('summary').click();
  await expect(call.locator('pre').nth(1)).toHaveText('41');

  expect(await luminanceOf(page.locator('body'), 'background-color')).toBeLessThan(0.05);
  expect(await luminanceOf(composer(page), 'background-color')).toBeLessThan(0.05);
  expect(await luminanceOf(page.getByRole('heading', { level: 1, name: 'Phone chat' }), 'color')).toBeGreaterThan(0.5);

  const root = await rootScrollsSideways(page);
  expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  // Scrolled to the newest message, the sticky header and composer stay on screen.
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeInViewport();
  await expect(page.getByRole('banner')).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
});

test('the Conversations list says which chat is working and which waits for you, and updates when the work ends', async ({ page, api }) => {
  const worker = await createAgent(api, { name: 'Sleeper', description: 'Takes a while' });
  const gate = await createAgent(api, { name: 'Gatekeeper', description: 'Asks first', toolGroups: ['utility'], approvalTools: ['calculator'] });
  const quiet = await createAgent(api, { name: 'Quiet', description: 'Says nothing' });
  const send = async (agentId: string, text: string) => {
    const { id } = await createConversation(api, agentId);
    const res = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text, idempotencyKey: crypto.randomUUID() } });
    expect(res.status(), await res.text()).toBe(202);
    return id;
  };
  const gated = await send(gate.id, '/call calculator {"expression":"6*7"}');
  await expect.poll(async () => (await conversationDetail(api, gated)).run?.status, REPLY).toBe('interrupted');
  await send(worker.id, '/sleep 3000\n/reply done');
  await createConversation(api, quiet.id);

  await page.goto('/conversations');
  const row = (name: string) => page.getByRole('link', { name: new RegExp(`^${name}`) });
  await expect(row('Sleeper')).toContainText('Working…', PAGE_DATA);
  await expect(row('Gatekeeper')).toContainText('Waiting for you');
  await expect(row('Quiet')).not.toContainText(/Working|Waiting/);
  // The list has no stream: it reads itself again while something works, so the badge goes when the run ends.
  await expect(row('Sleeper')).not.toContainText('Working…', { timeout: 12_000 });
  await expect(row('Gatekeeper')).toContainText('Waiting for you');
});
