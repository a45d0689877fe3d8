import { request as playwrightRequest } from '@playwright/test';
import { BASE_URL } from './env';
import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

/** A GET and a POST with only this Bearer token. */
async function withToken(token: string) {
  const ctx = await playwrightRequest.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  try {
    const read = (await ctx.get('/api/v1/me')).status();
    const write = await ctx.post('/api/v1/agents', { data: { name: `Made by token ${Date.now()}` } });
    return { read, writeStatus: write.status(), writeBody: (await write.json()) as { error?: { code?: string } } };
  } finally {
    await ctx.dispose();
  }
}

test('a new token’s access is a labelled radio group, read-only preselected; a read-only token reads and is refused writes', async ({
  page,
  account,
}) => {
  test.slow(); // two submissions and four Bearer calls
  await page.goto('/settings');
  const form = page.getByRole('form', { name: 'Create API token' });
  await expect(form).toBeVisible(PAGE_DATA);
  const access = form.getByRole('group', { name: 'Access' });
  const readOnly = access.getByRole('radio', { name: 'Read only' });
  const full = access.getByRole('radio', { name: 'Full access' });
  await expect(readOnly).toBeChecked();
  await expect(readOnly).toHaveAccessibleDescription(/any change is refused/);

  await form.getByLabel('Token name').fill('dashboard');
  await form.getByLabel('Your password').fill(account.password);
  await form.getByRole('button', { name: 'Create token' }).click();
  const notice = page.getByRole('region', { name: 'New API token' });
  const reader = await notice.getByRole('textbox', { name: 'New token' }).inputValue();
  await notice.getByRole('button', { name: 'Done' }).click();
  const list = page.getByRole('list', { name: 'Your API tokens' });
  await expect(list.getByRole('listitem').filter({ hasText: 'dashboard' })).toContainText('Read only');

  // Must not happen: a read-only token creating anything.
  const readOnlyCalls = await withToken(reader);
  expect(readOnlyCalls.read).toBe(200);
  expect(readOnlyCalls.writeStatus).toBe(403);
  expect(readOnlyCalls.writeBody.error?.code).toBe('read_only_token');

  // The keyboard picks full access: arrow keys move within the group.
  await readOnly.focus();
  await page.keyboard.press('ArrowDown');
  await expect(full).toBeChecked();
  await form.getByLabel('Token name').fill('deploy');
  await form.getByLabel('Your password').fill(account.password);
  await form.getByRole('button', { name: 'Create token' }).click();
  const writer = await notice.getByRole('textbox', { name: 'New token' }).inputValue();
  await expect(list.getByRole('listitem').filter({ hasText: 'deploy' })).toContainText('Full access');
  expect((await withToken(writer)).writeStatus).toBe(201);
});
