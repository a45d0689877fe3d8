import path from 'node:path';
import { expect, test } from './fixtures';
import { ROOT_DIR } from './env';
import { PAGE_DATA } from './support/seed';

/**
 * MCP servers (issue 28, ADR 054): an admin adds a deployment-wide stdio server (server-everything) on the Admin
 * page, sees it connect and lists its tools with their input schemas, edits and removes it; a member adds their own
 * server over HTTP on Settings and sees the egress rule refuse the cloud metadata address, and sees the deployment's server
 * by name. What must not happen: a saved env or header value reaching the browser; a member defining a command.
 */

const EVERYTHING = path.join(ROOT_DIR, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ENV_SECRET = 'SECRET-env-value-7f3a';
const HEADER_SECRET = 'Bearer SECRET-header-value-91c2';

test('an admin adds a stdio server, sees its status and tools, edits and removes it', async ({ browser, accounts }) => {
  test.setTimeout(60_000);
  const admin = await accounts.create('admin', { admin: true });
  const context = await browser.newContext({ storageState: admin.storageState });
  const page = await context.newPage();
  await page.goto('/admin');
  const section = page.getByRole('region', { name: 'MCP servers', exact: true });
  const form = section.getByRole('form', { name: 'Add an MCP server' });
  await form.getByLabel('Transport').selectOption('stdio');
  await form.getByLabel('Name').fill('everything');
  await form.getByLabel('Command').fill(process.execPath);
  await form.getByLabel('Arguments').fill(`${EVERYTHING}\nstdio`);
  await form.getByLabel('Environment').fill(`EXAMPLE_TOKEN=${ENV_SECRET}`);
  await form.getByRole('button', { name: 'Add MCP server' }).click();
  await expect(form.getByRole('status')).toHaveText('Added everything.');

  const item = section.getByRole('list', { name: 'Deployment-wide MCP servers' }).getByRole('listitem').filter({ hasText: 'everything' }).first();
  await expect(item).toContainText('Environment set: EXAMPLE_TOKEN', PAGE_DATA);
  expect(await page.content()).not.toContain(ENV_SECRET);

  await item.getByRole('button', { name: 'Tools of everything' }).click();
  await expect(item.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible({ timeout: 20_000 });
  const tools = item.getByRole('list', { name: 'Tools of everything' });
  const echo = tools.getByRole('listitem').filter({ has: page.getByText('echo', { exact: true }) });
  await echo.locator('summary').click();
  await expect(echo.locator('pre')).toContainText('"message"');
  await expect(echo).toContainText('Read-only');

  await item.getByRole('button', { name: 'Edit everything' }).click();
  const edit = item.getByRole('form', { name: 'Edit everything' });
  await edit.getByLabel('Timeout per call (seconds)').fill('601');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit.getByText('A number of seconds from 1 to 600')).toBeVisible();
  await edit.getByLabel('Timeout per call (seconds)').fill('30');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(item).toContainText('30 s per call', PAGE_DATA);
  await expect(item).toContainText('Environment set: EXAMPLE_TOKEN');

  await item.getByRole('button', { name: 'Remove everything' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove everything?' });
  await dialog.getByRole('button', { name: 'Remove server' }).click();
  // Deployment-wide servers are shared by every test of the run (another spec registers its own), so the list need
  // not be empty: this server's entry is what must go.
  await expect(section.getByRole('button', { name: 'Tools of everything' })).toHaveCount(0, PAGE_DATA);
  await context.close();
});

test('a member adds an HTTP server on Settings; the metadata address is refused by the egress rule; a command is 403', async ({ page, api, accounts }) => {
  test.setTimeout(60_000);
  const admin = await accounts.create('admin', { admin: true });
  const adminApi = await accounts.apiFor(admin);
  const shared = `shared-${Date.now().toString(36)}`;
  expect((await adminApi.post('/api/v1/admin/mcp/servers', { data: { transport: 'http', name: shared, url: 'https://mcp.example.test/mcp' } })).status()).toBe(201);

  await page.goto('/settings');
  const section = page.getByRole('region', { name: 'MCP servers', exact: true });
  await expect(section.getByRole('list', { name: 'MCP servers offered by this deployment' })).toContainText(shared, PAGE_DATA);
  const form = section.getByRole('form', { name: 'Add an MCP server' });
  await expect(form.getByLabel('Transport')).toHaveCount(0);
  await expect(form.getByLabel('Command')).toHaveCount(0);
  await form.getByLabel('Name').fill('local');
  await form.getByLabel('URL').fill('http://169.254.169.254/mcp');
  await form.getByLabel('Headers').fill(`Authorization: ${HEADER_SECRET}`);
  await form.getByRole('button', { name: 'Add MCP server' }).click();
  await expect(form.getByRole('status')).toHaveText('Added local.');

  const item = section.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem').filter({ hasText: 'local' }).first();
  await expect(item).toContainText('Headers set: Authorization', PAGE_DATA);
  expect(await page.content()).not.toContain('SECRET-header');
  await item.getByRole('button', { name: 'Tools of local' }).click();
  await expect(item.getByText(/169\.254\.169\.254 is a cloud metadata address/)).toBeVisible({ timeout: 20_000 });
  await expect(item.getByRole('status')).toContainText('Error');

  const refused = await api.post('/api/v1/mcp/servers', { data: { transport: 'stdio', name: 'shell', command: '/bin/sh' } });
  expect(refused.status()).toBe(403);
});
