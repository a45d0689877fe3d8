import type { APIRequestContext, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { conversationDetail, createAgent, createConversation } from './support/seed';
import { FIRST_LOAD, RESULT_TIMEOUT } from './support/team-flows';

/*
 * The conversation page follows its event stream (GET /conversations/:id/events) instead of polling: results
 * arrive by push, the conversation is read only when the stream says something changed, and only while the stream
 * is down does the page re-read it on a timer (and say so). It also renders with its first data on the server.
 */
test.describe.configure({ timeout: 60_000 });

const RESULT = { timeout: 30_000 };
/** The member sleeps this long before answering, so the window below is one with no change to this conversation. */
const MEMBER_SLEEP_MS = 9_000;

const composer = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const liveStatus = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ });

async function createTeam(api: APIRequestContext, name: string, agentIds: string[]) {
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name, goal: 'Answer by push', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
}

/** Times of the page's reads of this conversation's state (GET /api/v1/conversations/:id, not /events). */
function recordStateReads(page: Page, conversationId: string): number[] {
  const reads: number[] = [];
  page.on('request', (r) => {
    if (r.method() === 'GET' && new URL(r.url()).pathname === `/api/v1/conversations/${conversationId}`) reads.push(Date.now());
  });
  return reads;
}

test("a mention's result arrives by push; nothing re-reads the conversation while nothing changed", async ({ page, api }) => {
  const slow = await createAgent(api, { name: 'Slowpoke', description: 'Answers late' });
  const other = await createAgent(api, { name: 'Other', description: 'Second member' });
  await createTeam(api, 'Late crew', [slow.id, other.id]);
  const solo = await createAgent(api, { name: 'Solo', description: 'Asks the team' });
  const { id } = await createConversation(api, solo.id);
  const reads = recordStateReads(page, id);

  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Solo' })).toBeVisible(FIRST_LOAD);
  await expect(liveStatus(page)).toBeVisible(FIRST_LOAD);

  const box = composer(page);
  await box.click();
  // As a person does: see the member offered, pick it, and see its chip before writing the task. (Typed before the
  // members were known, the space would close the list and Enter would start a new line instead of picking.)
  await box.pressSequentially('@');
  const options = page.getByRole('listbox').getByRole('option');
  await expect(options).toHaveText(['@Late crew / Slowpoke', '@Late crew / Other'], FIRST_LOAD);
  await box.pressSequentially('Late crew / Slow');
  await expect(options).toHaveText(['@Late crew / Slowpoke']);
  await box.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove recipient Late crew / Slowpoke' })).toBeVisible();
  await page.keyboard.insertText(`/sleep ${MEMBER_SLEEP_MS}`);
  await box.press('Enter');
  await page.keyboard.insertText('/reply Late answer');
  const sentAt = Date.now();
  await box.press('Control+Enter');
  // The send records the mention's note in this thread through the agent's graph, as a run does: seconds under load.
  await expect(history(page).getByText('Sent to: Late crew / Slowpoke', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  const settledAt = Date.now();

  // The member's run sleeps in its own conversation: this one has nothing new until the receipt, so a page that
  // polled (every 2 s while a request was out, before push) would read it in this window; this page must not.
  const receipt = history(page).getByRole('article', { name: 'Result from Slowpoke (completed)' });
  await expect(receipt).toBeVisible(RESULT);
  await expect(receipt).toContainText('Late answer');
  const quietFrom = settledAt + 1_000;
  const quietTo = sentAt + MEMBER_SLEEP_MS - 500;
  expect(quietTo - quietFrom, 'the machine was too slow for a quiet window of a few seconds').toBeGreaterThan(3_000);
  expect(reads.filter((t) => t > quietFrom && t < quietTo)).toEqual([]);
  await expect(liveStatus(page)).toBeVisible();
});

test('while the stream is down the page says so and polls; when it is back the page is Live again', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Echo', description: 'Replies' });
  const { id } = await createConversation(api, agent.id);
  // A refused stream, as when the server is unreachable for it: the page must still show what happens.
  const events = new RegExp(`/api/v1/conversations/${id}/events$`);
  await page.route(events, (route) => route.fulfill({ status: 503, body: 'down' }));
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('status').filter({ hasText: 'Reconnecting — checking every 5 s' })).toBeVisible(FIRST_LOAD);

  await composer(page).fill('/sleep 1500\n/reply Polled answer');
  await composer(page).press('Control+Enter');
  // No push can tell the page the run finished: the fallback read brings the reply.
  await expect(history(page).getByText('Polled answer', { exact: true })).toBeVisible({ timeout: 15_000 });

  await page.unroute(events);
  await expect(liveStatus(page)).toBeVisible({ timeout: 15_000 });
});

test('the server-rendered conversation hydrates without a console error and keeps what it showed', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Clock', description: 'Replies with a tool call' });
  const { id } = await createConversation(api, agent.id);
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, {
    data: { text: '/call calculator {"expression":"6*7"}', idempotencyKey: crypto.randomUUID() },
  });
  expect(sent.status(), await sent.text()).toBeLessThan(300);
  await expect.poll(async () => (await conversationDetail(api, id)).run?.status, { timeout: 15_000 }).toBe('success');

  const errors: string[] = [];
  // (The app has no favicon: the browser's own request for one is not the page's error.)
  page.on('console', (m) => void (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico') && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/conversations/${id}`);
  await expect(history(page).locator('details').filter({ hasText: 'Tool call: calculator' })).toBeVisible();
  // Live means the client runs: it took over the server's HTML as it was (no hydration mismatch, no error).
  await expect(liveStatus(page)).toBeVisible(FIRST_LOAD);
  await expect(composer(page)).toBeEditable();
  expect(errors).toEqual([]);
});

test.describe('first paint', () => {
  test.use({ javaScriptEnabled: false });

  test('the conversation and the list are rendered with their data on the server; another owner gets not found, not the history', async ({
    page,
    api,
    accounts,
    browser,
  }) => {
    const agent = await createAgent(api, { name: 'Historian', description: 'Keeps history' });
    const { id } = await createConversation(api, agent.id);
    const sent = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text: '/reply Server-rendered 漢字 ✨', idempotencyKey: crypto.randomUUID() } });
    expect(sent.status(), await sent.text()).toBeLessThan(300);
    await expect.poll(async () => (await conversationDetail(api, id)).run?.status, { timeout: 15_000 }).toBe('success');

    // No JavaScript: whatever shows came from the server's render.
    await page.goto(`/conversations/${id}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Historian' })).toBeVisible();
    await expect(history(page).getByText('Server-rendered 漢字 ✨', { exact: true })).toBeVisible();
    await expect(page.getByText('Loading conversation…')).toHaveCount(0);
    // The list too, with the agents to start a conversation with.
    await page.goto('/conversations');
    await expect(page.getByRole('link', { name: /Historian/ })).toHaveAttribute('href', `/conversations/${id}`);
    await expect(page.getByRole('combobox', { name: 'Agent' })).toContainText('Historian');

    const stranger = await accounts.create('stranger');
    // Contexts made in a test take its `use` options: this one runs JavaScript again (the not-found view streams in).
    const context = await browser.newContext({ storageState: stranger.storageState, javaScriptEnabled: true });
    const theirs = await context.newPage();
    const res = await theirs.goto(`/conversations/${id}`);
    expect(res?.status()).toBe(404);
    // Not in what is shown, nor anywhere in the HTML (the prefetched cache is serialized into it).
    const html = (await res?.text()) ?? '';
    expect(html).not.toContain('Server-rendered');
    expect(html).not.toContain('Historian');
    await expect(theirs.getByRole('heading', { level: 1, name: 'Conversation not found' })).toBeVisible();
    await expect(theirs.getByText('Server-rendered 漢字 ✨')).toHaveCount(0);
    // Their list is theirs: none of this owner's conversations or agents.
    const list = await theirs.goto('/conversations');
    expect(await list?.text()).not.toContain('Historian');
    await expect(theirs.getByText('No conversations yet')).toBeVisible();
    await context.close();
  });
});
