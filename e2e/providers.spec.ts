import http from 'node:http';
import type { AddressInfo } from 'node:net';
import crypto from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

/**
 * Admin → Providers: add an OpenAI-compatible provider, test its connection against a tiny local stub that answers
 * /v1/models, see its key only as ••••last4, and remove it. A member's API call gets the 404 every admin path gives.
 */

const KEY = `sk-e2e-${crypto.randomUUID().slice(0, 8)}-Zq7w`;

async function startModelsStub() {
  const server = http.createServer((req, res) => {
    const ok = req.url === '/v1/models' && req.headers.authorization === `Bearer ${KEY}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { object: 'list', data: [{ id: 'stub-large' }, { id: 'stub-small' }] } : { error: { message: 'bad key' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('an admin adds a provider, tests the connection, sees only the key’s last four, and removes it', async ({ browser, accounts, account }) => {
  test.setTimeout(60_000);
  const stub = await startModelsStub();
  try {
    const admin = await accounts.create('admin', { admin: true });
    const context = await browser.newContext({ storageState: admin.storageState });
    const page = await context.newPage();
    await page.goto('/admin');
    const section = page.getByRole('region', { name: 'Providers', exact: true });
    await expect(section.getByText('No providers added yet')).toBeVisible(PAGE_DATA);

    const slug = `lab-${crypto.randomUUID().slice(0, 6)}`;
    const form = section.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Kind').selectOption({ label: 'OpenAI-compatible' });
    await form.getByLabel('Name').fill('Lab 🧪 模型');
    await form.getByLabel('Slug').fill(slug);
    await form.getByLabel('Base URL').fill(`${stub.origin}/v1`);
    await form.getByLabel('API key').fill(KEY);
    await form.getByRole('button', { name: 'Add provider' }).click();
    await expect(form.getByRole('status')).toHaveText('Added Lab 🧪 模型.');
    await expect(form.getByLabel('API key')).toHaveValue('');

    const item = section.getByRole('list', { name: 'Providers', exact: true }).getByRole('listitem').filter({ hasText: 'Lab 🧪 模型' });
    await expect(item).toContainText(`${slug}:…`, PAGE_DATA);
    await expect(item).toContainText('key ••••Zq7w');
    // What must not happen: the saved key reaching the browser again.
    expect(await page.content()).not.toContain(KEY);

    await item.getByRole('button', { name: 'Test connection to Lab 🧪 模型' }).click();
    await expect(item.getByRole('status')).toHaveText(/^Connected in \d+ ms: 2 models listed\.$/);
    await expect(item).toContainText('2 models listed', PAGE_DATA);

    // Its caps on calls: one past the bound is refused at the field, a whole number is saved and shown.
    await expect(item).toContainText('4 calls at once');
    await item.getByRole('button', { name: 'Edit Lab 🧪 模型' }).click();
    const edit = item.getByRole('form', { name: 'Edit Lab 🧪 模型' });
    await edit.getByLabel('Calls at once').fill('1001');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByText('Must be a whole number from 1 to 1000, or empty', { exact: true })).toBeVisible();
    await edit.getByLabel('Calls at once').fill('2');
    await edit.getByLabel('Calls per minute').fill('30');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit).toBeHidden();
    await expect(item).toContainText('2 calls at once · 30 a minute', PAGE_DATA);

    // A member can't read the providers through the API either.
    const memberApi = await accounts.apiFor(account);
    expect((await memberApi.get('/api/v1/admin/providers')).status()).toBe(404);

    await item.getByRole('button', { name: 'Remove Lab 🧪 模型' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Lab 🧪 模型?' });
    await expect(dialog).toContainText(`"${slug}:"`);
    await dialog.getByRole('button', { name: 'Remove provider' }).click();
    await expect(dialog).toBeHidden();
    await expect(section.getByText('No providers added yet')).toBeVisible(PAGE_DATA);
    await context.close();
  } finally {
    await stub.close();
  }
});

test('a wrong key: the test shows the provider’s error, plainly', async ({ browser, accounts }) => {
  const stub = await startModelsStub();
  try {
    const admin = await accounts.create('admin', { admin: true });
    const context = await browser.newContext({ storageState: admin.storageState });
    const page = await context.newPage();
    await page.goto('/admin');
    const section = page.getByRole('region', { name: 'Providers', exact: true });
    const form = section.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Name').fill('Wrong key');
    await form.getByLabel('Slug').fill(`wrong-${crypto.randomUUID().slice(0, 6)}`);
    await form.getByLabel('Base URL').fill(`${stub.origin}/v1`);
    await form.getByLabel('API key').fill('sk-not-the-one');
    await form.getByRole('button', { name: 'Add provider' }).click();
    const item = section.getByRole('listitem').filter({ hasText: 'Wrong key' });
    await item.getByRole('button', { name: 'Test connection to Wrong key' }).click();
    await expect(item.getByRole('status')).toHaveText(/^Connection failed after \d+ ms: HTTP 401: bad key$/);
    await context.close();
  } finally {
    await stub.close();
  }
});

// In this file (its tests run in order in one worker), so the first test's "No providers added yet" holds.
test('the agent form’s Model picker offers the models a tested provider lists, by keyboard; an unlisted one warns and still saves', async ({ browser, accounts }) => {
  test.setTimeout(90_000);
  const stub = await startModelsStub();
  const admin = await accounts.create('admin', { admin: true });
  const adminApi = await accounts.apiFor(admin);
  const slug = `pick-${crypto.randomUUID().slice(0, 6)}`;
  const name = `Picker ${slug} 🧪`;
  let providerId: string | undefined;
  try {
    const context = await browser.newContext({ storageState: admin.storageState });
    const page = await context.newPage();
    await page.goto('/admin');
    const section = page.getByRole('region', { name: 'Providers', exact: true });
    const form = section.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Kind').selectOption({ label: 'OpenAI-compatible' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Slug').fill(slug);
    await form.getByLabel('Base URL').fill(`${stub.origin}/v1`);
    await form.getByLabel('API key').fill(KEY);
    await form.getByRole('button', { name: 'Add provider' }).click();
    await expect(form.getByRole('status')).toHaveText(`Added ${name}.`);
    const listed = (await (await adminApi.get('/api/v1/admin/providers')).json()) as { providers: { id: string; slug: string }[] };
    providerId = listed.providers.find((p) => p.slug === slug)?.id;
    const item = section.getByRole('listitem').filter({ hasText: name });
    await item.getByRole('button', { name: `Test connection to ${name}` }).click();
    await expect(item.getByRole('status')).toHaveText(/^Connected in \d+ ms: 2 models listed\.$/);

    // On a phone in dark mode: the open list fits the width and axe finds no serious or critical problem in it.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('/agents/new');
    const model = page.getByRole('combobox', { name: 'Model' });
    await expect(model).toHaveValue('scripted', PAGE_DATA);
    await expect(model).toHaveAttribute('aria-expanded', 'false');
    await model.fill(slug);
    const list = page.getByRole('listbox', { name: 'Suggestions by provider' });
    await expect(list.getByRole('group', { name }).getByRole('option')).toHaveText(['stub-large', 'stub-small']);
    const box = (await list.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const axe = await new AxeBuilder({ page }).include('form').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByLabel('Name').fill('Picked by keyboard');
    await model.fill(`${slug}:stub-sm`);
    await expect(model).toHaveAttribute('aria-expanded', 'true');
    const group = list.getByRole('group', { name });
    await expect(group.getByRole('option')).toHaveText(['stub-small']);
    await expect(list.getByRole('option')).toHaveCount(1); // stub-large doesn't match what was typed
    await model.press('ArrowDown');
    const option = group.getByRole('option', { name: 'stub-small' });
    await expect(option).toHaveAttribute('aria-selected', 'true');
    await expect(model).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id'))!);
    await model.press('Enter'); // picks; must not submit the form
    await expect(model).toHaveValue(`${slug}:stub-small`);
    await expect(model).toHaveAttribute('aria-expanded', 'false');
    await expect(page).toHaveURL(/\/agents\/new$/);
    await expect(page.getByText(/Not listed by/)).toHaveCount(0);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
    await expect(page.getByRole('listitem').filter({ hasText: 'Picked by keyboard' })).toContainText(`${slug}:stub-small`, PAGE_DATA);

    // A model the provider doesn't list: a warning naming the provider, Escape closes the list, and it still saves.
    await page.goto('/agents/new');
    await expect(model).toHaveValue('scripted', PAGE_DATA);
    await page.getByLabel('Name').fill('Typed by hand');
    await model.fill(`${slug}:stub-medium`);
    await expect(page.getByRole('status').filter({ hasText: 'No listed model matches' })).toBeVisible();
    await model.press('Escape');
    await expect(model).toHaveAttribute('aria-expanded', 'false');
    await expect(list).toBeHidden();
    await expect(model).toHaveAccessibleDescription(new RegExp(`^Not listed by ${name} — check the name`));
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
    await expect(page.getByRole('listitem').filter({ hasText: 'Typed by hand' })).toContainText(`${slug}:stub-medium`, PAGE_DATA);
    await context.close();
  } finally {
    if (providerId) expect((await adminApi.delete(`/api/v1/admin/providers/${providerId}`)).status()).toBe(204);
    await stub.close();
  }
});

test('on a phone, a provider’s and an MCP server’s details keep the card’s width: the buttons go below them', async ({ browser, accounts }) => {
  test.setTimeout(60_000);
  const admin = await accounts.create('admin', { admin: true });
  const adminApi = await accounts.apiFor(admin);
  const tag = crypto.randomUUID().slice(0, 6);
  const provider = (await (
    await adminApi.post('/api/v1/admin/providers', { data: { kind: 'openai', slug: `narrow-${tag}`, name: `Narrow ${tag}`, baseUrl: 'http://127.0.0.1:9/v1' } })
  ).json()) as { id: string };
  const server = (await (await adminApi.post('/api/v1/admin/mcp/servers', { data: { transport: 'http', name: `narrow-${tag}`, url: 'https://mcp.example.com/mcp' } })).json()) as { id: string };
  const context = await browser.newContext({ storageState: admin.storageState, viewport: { width: 390, height: 844 }, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.goto('/admin');
    const providerItem = page.getByRole('region', { name: 'Providers', exact: true }).getByRole('listitem').filter({ hasText: `Narrow ${tag}` });
    const mcpItem = page.getByRole('region', { name: 'MCP servers', exact: true }).getByRole('listitem').filter({ hasText: `narrow-${tag}` });
    for (const [item, details] of [
      [providerItem, providerItem.locator('p', { hasText: 'calls at once' })],
      [mcpItem, mcpItem.locator('p', { hasText: 'per call' })],
    ] as const) {
      await expect(details).toBeVisible(PAGE_DATA);
      const card = (await item.boundingBox())!;
      const text = (await details.boundingBox())!;
      // What must not happen: the details squeezed into a column a word wide beside the buttons.
      expect(text.width).toBeGreaterThan(card.width * 0.6);
    }
  } finally {
    await context.close();
    expect((await adminApi.delete(`/api/v1/admin/providers/${provider.id}`)).status()).toBe(204);
    expect((await adminApi.delete(`/api/v1/admin/mcp/servers/${server.id}`)).status()).toBe(204);
  }
});
