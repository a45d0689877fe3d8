/**
 * What a person sees of a run (issue 9): a running job's steps arriving live on its card and kept after reload,
 * a conversation turn's steps, provenance labels that set the framework's messages apart from the person's own,
 * and "Setup changed" on the next job's card after the agent's instructions were edited.
 */
import crypto from 'node:crypto';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, card, createAgent, createTeam, member, openTeam, sendRequest } from './support/team-flows';

/** Four slow model turns (three calculator calls, then the reply): steps arrive over about eight seconds. */
const SLOW_SUMS = [
  '/sleep 2000',
  '/call calculator {"expression":"1+2"}',
  '/call calculator {"expression":"3*4"}',
  '/call calculator {"expression":"10-4"}',
  '/reply Sums done',
].join('\n');

const steps = (scope: Locator) => scope.getByRole('list', { name: 'Run steps' });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

/** Open a card's Steps panel and wait for its list. */
async function openSteps(scope: Locator): Promise<Locator> {
  const button = scope.getByRole('button', { name: 'Steps', exact: true });
  await expect(button).toHaveAttribute('aria-expanded', 'false', { timeout: RESULT_TIMEOUT });
  await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  const list = steps(scope);
  await expect(list).toBeVisible({ timeout: RESULT_TIMEOUT });
  return list;
}

/** One reading of the list: how many steps, and whether the run's end is among them (read together). */
const snapshot = (list: Locator) =>
  list.evaluate((el) => ({ count: el.querySelectorAll(':scope > li').length, finished: /Run (completed|failed|cancelled)/.test(el.textContent ?? '') }));

test('a running job’s steps appear on its card while it works, the list grows to the end, and it is still there after a reload', async ({ page, api }) => {
  // Two page loads and an eight-second run, on a two-core machine that may be busy.
  test.setTimeout(90_000);
  const team = await createTeam(api, 'Steps crew', [
    { name: 'Calc', description: 'Adds things up' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  await openTeam(page, team.id);
  await sendRequest(api, team, 'Calc', SLOW_SUMS);

  const job = card(page, 'You → @Calc');
  const list = await openSteps(job);

  // Watch it while the run works: every reading before the run's end is kept. Steps must be on the list before the
  // run ends (not only filled in at the end), and the list must then grow to the run's end without a reload. Two
  // different counts before the end are not required: on a saturated machine the panel may first be read after the
  // third model call, and seeing the run still working is all that timing allows a test to insist on.
  const whileRunning = new Set<number>();
  await expect(job.getByText('Live — new steps appear as they happen')).toBeVisible();
  await expect
    .poll(
      async () => {
        const now = await snapshot(list);
        if (!now.finished) whileRunning.add(now.count);
        return now.finished;
      },
      { timeout: 20_000, intervals: [100] },
    )
    .toBe(true);
  expect(whileRunning.size, 'the panel was never read while the run worked').toBeGreaterThan(0);
  expect(Math.min(...whileRunning)).toBeGreaterThan(0);

  // The whole run: three tool calls with their arguments and results, model calls, the reply and the end.
  await expect(list.getByText('Run completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(job.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(list.getByText('Tool calculator returned', { exact: true })).toHaveCount(3);
  await expect(list.getByText(/^Model call · /)).toHaveCount(4);
  await expect(list.getByText('"expression": "3*4"')).toBeVisible();
  await expect(list.locator('pre').filter({ hasText: /^12$/ })).toBeVisible();
  await expect(list.getByText('Sums done', { exact: true })).toBeVisible();
  await expect(job.getByText('Live — new steps appear as they happen')).toHaveCount(0);
  // Token totals of the job's run in the panel's header (the scripted model reports usage).
  await expect(job.getByText(/tokens in · [\d,]+ out · 4 model calls/)).toBeVisible({ timeout: RESULT_TIMEOUT });

  const finalSteps = await list.getByRole('listitem').allTextContents();
  expect(finalSteps.length).toBeGreaterThan(Math.max(...whileRunning));

  await page.reload();
  await expect(page.getByRole('status').filter({ hasText: /^Live$/ })).toBeVisible(FIRST_LOAD);
  const again = await openSteps(card(page, 'You → @Calc'));
  await expect(again.getByRole('listitem')).toHaveText(finalSteps);
});

async function createSoloConversation(api: APIRequestContext): Promise<string> {
  const solo = await createAgent(api, { name: 'Solo', description: 'Talks to the person' });
  const res = await api.post('/api/v1/conversations', { data: { agentId: solo.id } });
  expect(res.status(), await res.text()).toBe(201);
  // The reply is the conversation itself (lib/types/conversation.ts Conversation), not wrapped.
  return ((await res.json()) as { id: string }).id;
}

test('a running conversation turn’s steps appear under the person’s message while it works, grow to the end, and are still there after a reload', async ({ page, api }) => {
  test.setTimeout(90_000);
  const conversationId = await createSoloConversation(api);
  // The page is open first (as the person would have it), so the turn arrives by push while it runs.
  await page.goto(`/conversations/${conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Solo' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('status').filter({ hasText: /^Live$/ })).toBeVisible(FIRST_LOAD);
  const sent = await api.post(`/api/v1/conversations/${conversationId}/messages`, { data: { text: SLOW_SUMS, idempotencyKey: crypto.randomUUID() } });
  expect(sent.status(), await sent.text()).toBe(202);
  const turn = () => history(page).getByRole('listitem').filter({ hasText: '/reply Sums done' }).first();
  const list = await openSteps(turn());

  const whileRunning = new Set<number>();
  await expect(turn().getByText('Live — new steps appear as they happen')).toBeVisible();
  await expect
    .poll(
      async () => {
        const now = await snapshot(list);
        if (!now.finished) whileRunning.add(now.count);
        return now.finished;
      },
      { timeout: 20_000, intervals: [100] },
    )
    .toBe(true);
  expect(whileRunning.size, 'the panel was never read while the run worked').toBeGreaterThan(0);
  expect(Math.min(...whileRunning)).toBeGreaterThan(0);
  await expect(list.getByText('Run completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(list.getByText('Tool calculator returned', { exact: true })).toHaveCount(3);
  await expect(list.getByText(/^Model call · /)).toHaveCount(4);
  await expect(list.getByText('"expression": "10-4"')).toBeVisible();
  const finalSteps = await list.getByRole('listitem').allTextContents();
  expect(finalSteps.length).toBeGreaterThan(Math.max(...whileRunning));

  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Solo' })).toBeVisible(FIRST_LOAD);
  const again = await openSteps(turn());
  await expect(again.getByRole('listitem')).toHaveText(finalSteps);
});

test('a conversation turn shows its steps; labels tell the person’s words from what the framework added', async ({ page, api }) => {
  test.setTimeout(60_000);
  const team = await createTeam(api, 'Label crew', [
    { name: 'Writer', description: 'Drafts text' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const conversationId = await createSoloConversation(api);
  const writer = member(team, 'Writer');

  // The person chats with Solo, then asks Writer (an @mention) from the same conversation.
  const sent = await api.post(`/api/v1/conversations/${conversationId}/messages`, {
    data: { text: '/call calculator {"expression":"2+5"}\n/reply Seven', idempotencyKey: crypto.randomUUID() },
  });
  expect(sent.status(), await sent.text()).toBe(202);
  const runId = ((await sent.json()) as { run: { id: string } }).run.id;
  await expect.poll(async () => ((await (await api.get(`/api/v1/runs/${runId}`)).json()) as { run: { status: string } }).run.status, {
    timeout: RESULT_TIMEOUT,
  }).toBe('success');
  const mention = await api.post(`/api/v1/conversations/${conversationId}/mentions`, {
    data: { memberIds: [writer.id], text: '/reply Draft ready', messageKey: crypto.randomUUID() },
  });
  expect(mention.status(), await mention.text()).toBe(201);

  await page.goto(`/conversations/${conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Solo' })).toBeVisible(FIRST_LOAD);

  // The person's message is labelled "You"; the returned result is the framework's, naming the member.
  const mine = history(page).getByRole('listitem').filter({ hasText: '/reply Seven' });
  await expect(mine.getByText('You', { exact: true })).toBeVisible();
  const receipt = history(page).getByRole('article', { name: 'Result from Writer (completed)' });
  await expect(receipt).toBeVisible({ timeout: 20_000 });
  await expect(receipt.getByText('framework · receipt from Writer', { exact: true })).toBeVisible();
  await expect(history(page).getByText('framework · note', { exact: true })).toBeVisible();

  // The first turn's steps: the calculator call with its arguments and result, and the run's end.
  const turnSteps = await openSteps(mine);
  await expect(turnSteps.getByText('Assistant called calculator', { exact: true })).toBeVisible();
  await expect(turnSteps.getByText('"expression": "2+5"')).toBeVisible();
  await expect(turnSteps.getByText('Tool calculator returned', { exact: true })).toBeVisible();
  await expect(turnSteps.getByText('Run completed', { exact: true })).toBeVisible();

  // In Writer's own conversation the request is the person's, delivered by the team: labelled as such.
  await page.goto(`/conversations/${writer.conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Writer' })).toBeVisible(FIRST_LOAD);
  const request = history(page).getByRole('article', { name: 'Request from You' });
  await expect(request.getByText('You · team request', { exact: true })).toBeVisible();
});

test('after the agent’s instructions change, the next job’s card says Setup changed and lists instructionsHash', async ({ page, api }) => {
  test.setTimeout(60_000);
  const team = await createTeam(api, 'Setup crew', [
    { name: 'Calc', description: 'Adds things up', instructions: 'Be brief.' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const members = ((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { members: Array<{ name: string; agentId: string }> }).members;
  const agentId = members.find((m) => m.name === 'Calc')!.agentId;
  await openTeam(page, team.id);

  await sendRequest(api, team, 'Calc', '/reply First');
  const firstCard = card(page, 'You → @Calc').filter({ hasText: 'First' });
  await expect(firstCard.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(firstCard.getByRole('button', { name: /^Setup changed/ })).toHaveCount(0);

  const edited = await api.patch(`/api/v1/agents/${agentId}`, { data: { instructions: 'Be brief and exact.' } });
  expect(edited.status(), await edited.text()).toBe(200);
  await sendRequest(api, team, 'Calc', '/reply Second');
  const secondCard = card(page, 'You → @Calc').filter({ hasText: 'Second' });
  await expect(secondCard.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });

  const badge = secondCard.getByRole('button', { name: /^Setup changed/ });
  await expect(badge).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(badge).toContainText('Instructions');
  await expect(badge).toHaveAttribute('aria-expanded', 'false');
  await badge.press('Enter');
  await expect(badge).toHaveAttribute('aria-expanded', 'true');
  await expect(secondCard.getByRole('listitem').filter({ hasText: 'instructionsHash' })).toBeVisible();
  // Only the instructions changed.
  await expect(secondCard.getByRole('listitem').filter({ hasText: '→' })).toHaveCount(1);

  // A phone in dark mode: the open badge and the open steps stick out nowhere.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 844 });
  await openSteps(secondCard);
  await expect(secondCard.getByText('Run completed', { exact: true })).toBeVisible();
  // The run's details show the whole descriptor, and what changed since the previous run.
  await secondCard.getByRole('button', { name: 'Setup (changed)' }).click();
  const setup = secondCard.locator('dl').filter({ hasText: 'Fingerprint' });
  await expect(setup.getByText('scripted', { exact: true })).toBeVisible();
  await expect(setup.getByText(/^time-limit → /)).toBeVisible();
  await expect(setup.getByRole('button', { name: 'Copy fingerprint' })).toBeVisible();
  for (const term of ['Model', 'Instructions', 'Tools', 'Need approval', 'Turn limit', 'Time limit', 'Compaction at', 'Token budget', 'Middleware', 'App version']) {
    await expect(setup.getByText(term, { exact: true })).toBeVisible();
  }
  await expect(secondCard.getByText('Changed since the previous run')).toBeVisible();
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, overflow.offenders.join('\n')).toBeLessThanOrEqual(0);
});
