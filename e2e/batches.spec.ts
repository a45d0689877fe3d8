import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { readBatch, readItems, startBatch as startBatchApi } from './support/batch-api';
import { FIRST_LOAD, RESULT_TIMEOUT, createAgent, createTeam, expectLive, markDocument } from './support/team-flows';

// Items run through the real scheduler and the scripted model; every single wait stays in seconds.
test.describe.configure({ timeout: 90_000 });

/** Items run one at a time unless a test says otherwise. */
const startBatch = (api: APIRequestContext, body: Record<string, unknown>) => startBatchApi(api, { concurrency: 1, ...body });

const listBox = (page: Page) => page.getByRole('textbox', { name: /^List/ });
const templateBox = (page: Page) => page.getByRole('textbox', { name: 'Prompt template' });
const countsList = (page: Page) => page.getByRole('list', { name: 'Items by status' });

// Row 3 fails (a provider error from the scripted model); each item sleeps first, so the batch runs while watched.
const CSV = ['name,cmd', '"Lovelace, Ada",/reply Hello Ada 😀', '李雷,/reply 你好 李雷', 'Grace,/fail the model broke'].join('\n');

test('a person pastes a CSV, fixes a wrong field, starts the batch, watches it finish by push, opens an item’s steps, downloads JSONL and retries the failed item', async ({
  page,
  api,
}) => {
  const agent = await createAgent(api, { name: 'Lister' });
  await page.goto('/agents', FIRST_LOAD);
  await page.getByRole('link', { name: 'Run over a list with Lister' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Run over a list with Lister' })).toBeVisible(FIRST_LOAD);
  expect(new URL(page.url()).searchParams.get('agentId')).toBe(agent.id);

  // Bad input is said, and nothing typed is lost: a duplicate header, then a short row.
  await listBox(page).fill('name,name\nA,B');
  await expect(page.getByText('The header row names the column “name” twice. Column names must differ.')).toBeVisible();
  await templateBox(page).fill('Keep me');
  await listBox(page).fill('name,cmd\nAda');
  await expect(page.getByText(/^Row 1 has 1 field but the header has 2 columns: it has no “cmd”/)).toBeVisible();
  await expect(templateBox(page)).toHaveValue('Keep me');

  await listBox(page).fill(CSV);
  const preview = page.getByRole('region', { name: 'Preview of the list' });
  await expect(preview).toContainText('Read as CSV: 3 rows, 2 columns.');
  await expect(preview.getByRole('cell', { name: 'Lovelace, Ada' })).toBeVisible();
  await expect(preview.getByRole('cell', { name: '李雷', exact: true })).toBeVisible();

  // A wrong field is named as the person types, and the list box keeps its text.
  await templateBox(page).fill('Greet {{nme}}\n/sleep 4000\n{{cmd}}');
  await expect(page.getByText('This field is not a column of the list: {{nme}}. The columns are {{name}}, {{cmd}}.')).toBeVisible();
  await expect(listBox(page)).toHaveValue(CSV);
  // Fixed with the insert-a-field button (keyboard users need no braces).
  await templateBox(page).fill('Greet \n/sleep 4000\n{{cmd}}');
  await templateBox(page).evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(6, 6));
  await page.getByRole('button', { name: 'Insert field name' }).click();
  await expect(templateBox(page)).toHaveValue('Greet {{name}}\n/sleep 4000\n{{cmd}}');
  await expect(page.getByText(/not a column of the list/)).toHaveCount(0);
  await expect(page.getByText('Greet Lovelace, Ada')).toBeVisible();

  // Each item sleeps 4 s, so the page is live before the batch ends even on a loaded machine: the counts move by push.
  await page.getByRole('spinbutton', { name: 'Tries per item' }).fill('1');
  await page.getByRole('button', { name: 'Start 3 items' }).click();
  await expect(page).toHaveURL(/\/batches\/[^/?]+$/, FIRST_LOAD);
  const batchId = new URL(page.url()).pathname.split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1, name: 'Batch with Lister' })).toBeVisible(FIRST_LOAD);
  await expectLive(page);
  const sameDocument = await markDocument(page);

  // The counts move by push (this document, never reloaded) until every item ended: 2 done, 1 failed.
  await expect(countsList(page)).toContainText('2 done', { timeout: RESULT_TIMEOUT * 2 });
  await expect(countsList(page)).toContainText('1 failed');
  await expect(page.getByText('Finished', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  expect(await sameDocument()).toBe(true);
  await expect(page.getByRole('progressbar', { name: 'Items finished' })).toHaveAttribute('aria-valuetext', /^3 of 3 ended: 2 done, 1 failed/);

  // An item opens to its input, its result and its run's steps.
  const items = page.getByRole('region', { name: 'Items table' });
  await items.getByRole('button', { name: 'Details of item 1' }).click();
  await expect(items.getByText('Hello Ada 😀').first()).toBeVisible();
  await expect(items.getByRole('region', { name: 'Steps of item 1' })).toBeVisible(FIRST_LOAD);
  // Filtered to the failed one, it shows the model's error.
  await page.getByLabel('Show').selectOption('failed');
  await expect(items.getByRole('row')).toHaveCount(2); // the header and the failed item (its details row is hidden)
  await expect(items).toContainText('Grace');

  // The JSONL export, read back: one object per item, with the results and the CJK and emoji intact.
  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download JSONL' }).click();
  const file = await (await downloading).path();
  const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toHaveLength(3);
  expect(JSON.stringify(lines)).toContain('Hello Ada 😀');
  expect(JSON.stringify(lines)).toContain('你好 李雷');

  // Retry failed: the failed item runs again (a new run) and, failing the same way, ends failed again.
  const before = (await readItems(api, batchId)).find((i) => i.status === 'failed')!;
  await page.getByRole('button', { name: 'Retry 1 failed' }).click();
  await expect(page.getByText('1 failed item is queued again.')).toBeAttached();
  await expect
    .poll(
      async () => {
        const runId = (await readItems(api, batchId)).find((i) => i.id === before.id)?.runId;
        return Boolean(runId) && runId !== before.runId;
      },
      { timeout: RESULT_TIMEOUT * 2 },
    )
    .toBe(true);
  await expect.poll(async () => (await readBatch(api, batchId)).status, { timeout: RESULT_TIMEOUT * 2 }).toBe('completed');
  await expect(countsList(page)).toContainText('1 failed', { timeout: RESULT_TIMEOUT });
});

test('from the Batches page with no agent yet: the way to create one; with agents and a team, a labelled choice of either, then the form, and the batch runs as the chosen member', async ({
  page,
  api,
}) => {
  await page.goto('/batches', FIRST_LOAD);
  // The header's link and the empty list's both lead to the choice.
  await page.getByRole('link', { name: 'Run over a list' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Run over a list' })).toBeVisible(FIRST_LOAD);
  expect(new URL(page.url()).search).toBe('');
  await expect(page.getByText('No agents yet')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Create an agent' })).toHaveAttribute('href', '/agents/new');
  await expect(page.getByRole('combobox', { name: 'Run with' })).toHaveCount(0);

  await createAgent(api, { name: 'Solo 研究者 🔬' });
  await createTeam(api, 'Launch crew', [{ name: 'Scout' }, { name: 'Checker' }]);
  await page.reload(FIRST_LOAD);
  const runWith = page.getByRole('combobox', { name: 'Run with' });
  await expect(runWith).toBeVisible(FIRST_LOAD);
  await expect(runWith.locator('optgroup[label="Agents"] option')).toHaveText(['Checker', 'Scout', 'Solo 研究者 🔬']);
  await expect(runWith.locator('optgroup[label="Team Launch crew"] option')).toHaveText(['Scout', 'Checker']);
  // Nothing to start before someone is chosen.
  await expect(listBox(page)).toHaveCount(0);
  const axe = await new AxeBuilder({ page }).include('main').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // A list pasted after choosing an agent stays when the choice changes to a team member.
  await runWith.selectOption({ label: 'Solo 研究者 🔬' });
  await listBox(page).fill('n\n1\n2');
  await templateBox(page).fill('/reply item {{n}}');
  await runWith.locator('optgroup[label="Team Launch crew"]').locator('option', { hasText: 'Checker' }).evaluate((o: HTMLOptionElement) => o.value).then((value) => runWith.selectOption(value));
  await expect(listBox(page)).toHaveValue('n\n1\n2');
  await page.getByRole('button', { name: 'Start 2 items' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Batch with Checker' })).toBeVisible(FIRST_LOAD);
  await expect(countsList(page)).toContainText('2 done', { timeout: RESULT_TIMEOUT * 2 });
});

test('a malformed JSONL line is named by its number; the template and the text stay', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Liner' });
  await page.goto(`/batches/new?agentId=${agent.id}`, FIRST_LOAD);
  await templateBox(page).fill('Do {{task}}');
  await listBox(page).fill('{"task":"one"}\n\n{"task":"two"');
  await expect(page.getByText(/^Line 3 is not valid JSON/)).toBeVisible();
  await expect(templateBox(page)).toHaveValue('Do {{task}}');
  await page.getByRole('button', { name: /^Start/ }).click();
  // Nothing was sent: still the form, the text as typed.
  await expect(page).toHaveURL(/\/batches\/new/);
  await expect(listBox(page)).toHaveValue('{"task":"one"}\n\n{"task":"two"');
});

test('cancelling a batch midway ends every unfinished item at once; finished ones keep their results', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Slow' });
  const items = Array.from({ length: 12 }, (_, i) => ({ n: String(i + 1) }));
  const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/sleep 1500\n/reply item {{n}}', columns: ['n'], items });
  await page.goto(`/batches/${batch.id}`, FIRST_LOAD);
  await expectLive(page);
  await expect(countsList(page)).toContainText(/[1-9]\d* done/, { timeout: RESULT_TIMEOUT * 2 });

  await page.getByRole('button', { name: 'Cancel batch' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this batch?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel batch' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(page.getByRole('button', { name: 'Cancel batch' })).toHaveCount(0);

  // Must not happen: an item left queued or running. (A late completion after the cancel is fenced; the server's
  // tests cover it, since waiting here to see nothing happen would be a sleep.)
  const after = await readBatch(api, batch.id);
  expect(after.counts.queued + after.counts.running).toBe(0);
  expect(after.counts.cancelled).toBeGreaterThan(0);
});

test('a cancelled batch re-runs its cancelled items from its page, and they finish by push; finished ones are not run again', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Rerunner' });
  const items = [
    { ms: '1', n: 'Ann' },
    { ms: '2500', n: '李雷 😀' },
    { ms: '1', n: 'Zoë' },
  ];
  const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/sleep {{ms}}\n/reply item {{n}}', columns: ['ms', 'n'], items });
  await expect.poll(async () => (await readBatch(api, batch.id)).counts.done, { timeout: RESULT_TIMEOUT }).toBe(1);
  expect((await api.post(`/api/v1/batches/${batch.id}/cancel`, { data: {} })).status()).toBe(200);
  const cancelled = await readBatch(api, batch.id);
  expect(cancelled).toMatchObject({ status: 'cancelled', counts: { done: 1, cancelled: 2 } });

  await page.goto(`/batches/${batch.id}`, FIRST_LOAD);
  // A cancelled batch offers no Retry of failed items (none failed) but a re-run of what the cancel left undone.
  await expect(page.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  const rerun = page.getByRole('button', { name: 'Re-run 2 items' });
  await rerun.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: '2 items are queued again; the batch runs.' })).toHaveCount(1);
  // Running again, the page follows it live once more.
  await expectLive(page);
  await expect(countsList(page)).toContainText('3 done', { timeout: RESULT_TIMEOUT * 2 });
  await expect(page.getByRole('button', { name: /^Re-run/ })).toHaveCount(0);

  const results = await readItems(api, batch.id);
  expect(results.map((i) => [i.status, i.result])).toEqual([
    ['done', 'item Ann'],
    ['done', 'item 李雷 😀'],
    ['done', 'item Zoë'],
  ]);
});

test('items whose tool needs approval wait for the person: the batch page shows them waiting and declines one in place, the Inbox lists the rest, one bulk approval finishes the batch', async ({
  page,
  api,
}) => {
  const agent = await createAgent(api, { name: 'Gatekeeper', toolGroups: ['utility'], approvalTools: ['calculator'] });
  const batch = await startBatch(api, {
    target: { agentId: agent.id },
    template: '/call calculator {"expression":"{{expr}}"}',
    columns: ['expr'],
    items: [{ expr: '6*7' }, { expr: '20+1' }, { expr: '7-2' }],
    concurrency: 2,
  });
  await page.goto(`/batches/${batch.id}`, FIRST_LOAD);
  await expectLive(page);
  // Every item stops at the approval and waits (a waiting item gives its place in the concurrency of 2 back, so the
  // third runs too): pushed, counted in words, each row saying so.
  await expect(countsList(page)).toContainText('3 waiting for you', { timeout: RESULT_TIMEOUT });
  await expect(page.getByText('Waiting for you', { exact: true })).toHaveCount(3);
  await expect(page.getByText('3 items wait for your answer')).toBeVisible();
  // What must not happen: a waiting item counted as failed or running.
  const waiting = await readBatch(api, batch.id);
  expect(waiting.counts).toMatchObject({ waiting: 3, running: 0, failed: 0 });
  // The third is declined in place on the batch page: its row opens to the same approval control.
  await page.getByRole('button', { name: 'Details of item 3' }).click();
  await page.getByRole('region', { name: 'Approval needed: calculator' }).getByRole('button', { name: 'Decline' }).click();
  await expect(countsList(page)).toContainText('2 waiting for you', { timeout: RESULT_TIMEOUT });

  await page.getByRole('link', { name: 'Inbox', exact: true }).last().click();
  await expect(page).toHaveURL(/\/inbox$/);
  const items = page.getByRole('list', { name: 'Waiting for you' }).getByRole('listitem');
  await expect(items).toHaveCount(2, { timeout: RESULT_TIMEOUT });
  await expect(items.nth(0)).toContainText('Item 1 of a batch run as Gatekeeper');
  await expect(items.nth(0).getByRole('definition')).toHaveText('6*7');
  await expect(items.nth(1).getByRole('region', { name: 'Approval needed: calculator' })).toContainText('"expression": "20+1"');
  const axe = await new AxeBuilder({ page }).include('main').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  await page.getByRole('checkbox', { name: 'Select calculator for Gatekeeper, item 1' }).check();
  await page.getByRole('checkbox', { name: 'Select calculator for Gatekeeper, item 2' }).check();
  await page.getByRole('button', { name: 'Approve selected' }).click();
  await expect(page.getByText('Nothing needs you')).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(page.getByText('Not answered:')).toHaveCount(0);

  // The answered items resumed through the scheduler and the batch ended; its page says so.
  await page.goto(`/batches/${batch.id}`, FIRST_LOAD);
  await expect(countsList(page)).toContainText('3 done', { timeout: RESULT_TIMEOUT });
  await expect(page.getByText('Finished', { exact: true }).first()).toBeVisible({ timeout: RESULT_TIMEOUT });
  const results = await readItems(api, batch.id);
  // Approved: the tool ran. Declined: it did not (no result of 7-2).
  expect(results.map((i) => [i.status, i.result?.includes(`[calculator] ${[42, 21, 5][i.index]}`)])).toEqual([
    ['done', true],
    ['done', true],
    ['done', false],
  ]);
});

test.describe('on a phone in dark mode', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, colorScheme: 'dark' });

  test('the start form and the batch page fit 390 px and pass axe', async ({ page, api }) => {
    const agent = await createAgent(api, { name: 'Pocket agent with a long name for a narrow screen' });
    await page.goto(`/batches/new?agentId=${agent.id}`, FIRST_LOAD);
    await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
    await listBox(page).fill(['title,author,notes', ...Array.from({ length: 6 }, (_, i) => `Book ${i} with a rather long title,作者 ${i},${'😀'.repeat(30)}`)].join('\n'));
    await templateBox(page).fill('Summarize {{title}} by {{author}}');
    await expect(page.getByRole('region', { name: 'Preview of the list' })).toContainText('6 rows, 3 columns');
    expect((await measureHorizontalOverflow(page)).offenders).toEqual([]);
    const formAxe = await new AxeBuilder({ page }).include('main').analyze();
    expect(formAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

    await page.getByRole('button', { name: 'Start 6 items' }).tap();
    await expect(page.getByRole('heading', { level: 1, name: /^Batch with Pocket agent/ })).toBeVisible(FIRST_LOAD);
    await expect(countsList(page)).toContainText('6 done', { timeout: RESULT_TIMEOUT * 3 });
    expect((await measureHorizontalOverflow(page)).offenders).toEqual([]);
    const pageAxe = await new AxeBuilder({ page }).include('main').analyze();
    expect(pageAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });
});

test('another account gets 404 for the batch page and for starting a batch with someone else’s agent', async ({ api, accounts, browser }) => {
  const agent = await createAgent(api, { name: 'Private' });
  const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/reply {{n}}', columns: ['n'], items: [{ n: 'x' }] });
  const other = await accounts.create('other');
  const context = await browser.newContext({ storageState: other.storageState });
  const page = await context.newPage();
  expect((await page.goto(`/batches/${batch.id}`))?.status()).toBe(404);
  await expect(page.getByText('Batch with Private')).toHaveCount(0);
  expect((await page.goto(`/batches/new?agentId=${agent.id}`))?.status()).toBe(404);
  await context.close();
});

test('a batch an agent started with batch_task links to its batch from the chat: the tool’s result and the end message each open the batch page', async ({
  page,
  api,
}) => {
  const worker = await createAgent(api, { name: 'Item worker' });
  const lead = await createAgent(api, { name: 'Batch lead', toolGroups: ['batch'] });
  const conversation = await api.post('/api/v1/conversations', { data: { agentId: lead.id } });
  expect(conversation.status()).toBe(201);
  const { id } = (await conversation.json()) as { id: string };
  await page.goto(`/conversations/${id}`, FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1, name: 'Batch lead' })).toBeVisible(FIRST_LOAD);

  // Not waiting: the call answers at once with the batch's id, and the batch's end comes back as one message.
  const call = { agentId: worker.id, template: '/reply done {{n}}', columns: ['n'], items: [{ n: '李 😀' }, { n: 'b' }], concurrency: 1, wait: false };
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`/call batch_task ${JSON.stringify(call)}`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const history = page.getByRole('log');
  // The framework's message (the agent's reply to it, after it, quotes it too).
  const endMessage = history.getByRole('listitem').filter({ hasText: 'The batch you started (batch_task) has ended.' }).first();
  await expect(endMessage).toBeVisible({ timeout: 30_000 });
  const fromEnd = endMessage.getByRole('link', { name: 'Open the batch' });
  const href = await fromEnd.getAttribute('href');
  expect(href).toMatch(/^\/batches\/[0-9a-f-]+$/);

  // The tool's own result links to the same batch, once its details are opened from the keyboard.
  // A <summary> is the disclosure's own control (it has no ARIA role Playwright can find it by).
  const details = history.locator('summary').filter({ hasText: 'Tool call: batch_task' }).first();
  await details.focus();
  await page.keyboard.press('Enter');
  const fromResult = history.getByRole('link', { name: 'Open the batch' }).first();
  await expect(fromResult).toHaveAttribute('href', href!);

  await fromEnd.focus();
  await expect(fromEnd).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`${href}$`), FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Item worker', FIRST_LOAD);
});

test('two batches started from one chat: each “Open the batch” link is named for its own batch, so a screen reader tells them apart', async ({ page, api }) => {
  const worker = await createAgent(api, { name: 'Pair worker' });
  const lead = await createAgent(api, { name: 'Pair lead', toolGroups: ['batch'] });
  const conversation = await api.post('/api/v1/conversations', { data: { agentId: lead.id } });
  expect(conversation.status()).toBe(201);
  const { id } = (await conversation.json()) as { id: string };
  await page.goto(`/conversations/${id}`, FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1, name: 'Pair lead' })).toBeVisible(FIRST_LOAD);

  // One response, two batch_task calls (neither waits): two batches, two end messages in the one history.
  const call = (word: string) => JSON.stringify({ agentId: worker.id, template: `/reply ${word} {{n}}`, columns: ['n'], items: [{ n: '1' }], concurrency: 1, wait: false });
  await page.getByRole('combobox', { name: 'Message', exact: true }).fill(`/call batch_task ${call('first')}\n/also batch_task ${call('second')}`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const history = page.getByRole('log');
  // The framework's messages, each with its link (the agent's replies after them quote the text, without a link).
  const endMessages = history
    .getByRole('listitem')
    .filter({ hasText: 'The batch you started (batch_task) has ended.' })
    .filter({ has: page.getByRole('link', { name: /^Open the batch/ }) });
  await expect(endMessages).toHaveCount(2, { timeout: 30_000 });
  const ids: string[] = [];
  for (const message of await endMessages.all()) {
    const href = await message.getByRole('link', { name: /^Open the batch/ }).getAttribute('href');
    expect(href).toMatch(/^\/batches\/[0-9a-f-]+$/);
    ids.push(href!.slice('/batches/'.length));
  }
  expect(new Set(ids).size).toBe(2);

  // Each batch's links (its end message's, and its tool result's once the details are open) share a name naming that
  // batch and no other; none is named only "Open the batch".
  for (const summary of await history.locator('summary').filter({ hasText: 'Tool call: batch_task' }).all()) {
    await summary.focus();
    await page.keyboard.press('Enter');
  }
  for (const batchId of ids) {
    const links = history.getByRole('link', { name: `Open the batch ${batchId.slice(0, 8)}`, exact: true });
    await expect(links).toHaveCount(2);
    for (const link of await links.all()) await expect(link).toHaveAttribute('href', `/batches/${batchId}`);
  }
  await expect(history.getByRole('link', { name: 'Open the batch', exact: true })).toHaveCount(0);
});

test('a batch item’s hidden conversation, opened directly, sends its approval to the batch, then says it was cancelled with its batch', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Hidden gate', toolGroups: ['utility'], approvalTools: ['calculator'] });
  const batch = await startBatch(api, { target: { agentId: agent.id }, template: '/call calculator {"expression":"{{expr}}"}', columns: ['expr'], items: [{ expr: '5*5' }] });
  // The item's conversation is hidden from the list; the Inbox's read names it.
  type Waiting = { items: Array<{ where: { source: string; batchId?: string; conversationId: string } }> };
  let conversationId = '';
  await expect
    .poll(
      async () => {
        const { items } = (await (await api.get('/api/v1/inbox')).json()) as Waiting;
        conversationId = items.find((i) => i.where.source === 'batch' && i.where.batchId === batch.id)?.where.conversationId ?? '';
        return conversationId;
      },
      { timeout: RESULT_TIMEOUT },
    )
    .not.toBe('');

  await page.goto(`/conversations/${conversationId}`, FIRST_LOAD);
  await expectLive(page);
  // Answered where the item records it, never here (the server would refuse it): no Approve, no composer.
  const notice = page.getByRole('region', { name: 'A batch item waits for you' });
  await expect(notice).toBeVisible(FIRST_LOAD);
  await expect(notice.getByRole('link', { name: `Answer on the batch’s page ${batch.id.slice(0, 8)}`, exact: true })).toHaveAttribute('href', `/batches/${batch.id}`);
  await expect(page.getByRole('region', { name: 'Approval needed: calculator' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Message', exact: true })).toHaveCount(0);
  const cancelled = await api.post(`/api/v1/batches/${batch.id}/cancel`);
  expect(cancelled.status(), await cancelled.text()).toBe(200);

  // Told by push, not reloaded: the batch's cancel, in its own words; nothing is left to answer.
  await expect(page.getByRole('status').filter({ hasText: 'The approval of calculator was cancelled with its batch: nothing waits for your answer.' })).toBeVisible({
    timeout: RESULT_TIMEOUT,
  });
  await expect(page.getByText('cancelled with its team request')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'A batch item', exact: true }).getByRole('link', { name: `Open the batch ${batch.id.slice(0, 8)}` })).toBeVisible();
  await expect(page.getByRole('region', { name: 'A batch item waits for you' })).toHaveCount(0);
});
