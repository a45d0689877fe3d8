import { request as playwrightRequest, type APIRequestContext } from '@playwright/test';
import { BASE_URL } from './env';
import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

type StorageState = Awaited<ReturnType<APIRequestContext['storageState']>>;

/** GET /api/v1/me with only this Bearer token, or only these cookies (a fresh context, nothing else). */
async function meStatus(auth: { token: string } | { storageState: StorageState }): Promise<number> {
  const ctx =
    'token' in auth
      ? await playwrightRequest.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { authorization: `Bearer ${auth.token}` } })
      : await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: auth.storageState });
  try {
    return (await ctx.get('/api/v1/me')).status();
  } finally {
    await ctx.dispose();
  }
}

test('change password: asks the current one, signs out other browsers, keeps this one signed in', async ({
  page,
  account,
  accounts,
}) => {
  test.slow(); // many round trips: three submissions, two extra sign-ins
  // Another browser, signed in before the change.
  const otherBrowser = await accounts.signIn(account);
  expect(await meStatus({ storageState: otherBrowser })).toBe(200);

  await page.goto('/settings');
  const section = page.getByRole('region', { name: 'Change password' });
  await expect(section.getByRole('heading', { name: 'Change password' })).toBeVisible(PAGE_DATA);
  const newPassword = 'a brand new passphrase';

  const submit = async (current: string, next: string, confirm: string) => {
    // Every answer clears the form (passwords are not kept on screen), so each attempt fills all three.
    await section.getByLabel('Current password').fill(current);
    await section.getByLabel('New password', { exact: true }).fill(next);
    await section.getByLabel('Confirm new password').fill(confirm);
    await section.getByRole('button', { name: 'Change password' }).click();
  };

  // The two new passwords must match, and the current one must be right; each answer is next to its field.
  await submit(account.password, newPassword, `${newPassword}!`);
  await expect(section.getByLabel('Confirm new password')).toHaveAccessibleDescription(/The two new passwords differ/, PAGE_DATA);
  await submit('not my password', newPassword, newPassword);
  await expect(section.getByLabel('Current password')).toHaveAccessibleDescription(/Wrong password/, PAGE_DATA);
  expect(await meStatus({ storageState: otherBrowser })).toBe(200);

  await submit(account.password, newPassword, newPassword);
  await expect(page).toHaveURL(/\/settings\?password=changed$/, PAGE_DATA);
  await expect(section.getByRole('status').filter({ hasText: 'Password changed' })).toBeVisible(PAGE_DATA);

  // This browser is still signed in; the other one is not; API tokens made before the change are revoked.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible(PAGE_DATA);
  expect(await meStatus({ storageState: await page.context().storageState() })).toBe(200);
  expect(await meStatus({ storageState: otherBrowser })).toBe(401);
  expect(await meStatus({ token: account.token })).toBe(401);

  // The new password signs in; the old one no longer does.
  await expect(accounts.signIn({ email: account.email, password: newPassword })).resolves.toBeTruthy();
  await expect(accounts.signIn(account)).rejects.toThrow();
});

test('creating a token asks for the password again and offers an expiry; the list shows expiry and last use', async ({
  page,
  account,
}) => {
  test.slow(); // three submissions, a reload and a Bearer call
  await page.goto('/settings');
  const form = page.getByRole('form', { name: 'Create API token' });
  await expect(form).toBeVisible(PAGE_DATA);
  const list = page.getByRole('list', { name: 'Your API tokens' });
  await expect(list.getByRole('listitem')).toHaveCount(1, PAGE_DATA);

  await form.getByLabel('Token name').fill('nightly export');
  await form.getByLabel('Expires after').selectOption({ label: '30 days' });
  // No password: refused in the browser.
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(form.getByLabel('Your password')).toHaveAccessibleDescription(/Enter your password/);
  // A wrong one: refused by the server, next to the field; nothing is created.
  await form.getByLabel('Your password').fill('not my password');
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(form.getByLabel('Your password')).toHaveAccessibleDescription(/Wrong password/);
  await expect(page.getByRole('region', { name: 'New API token' })).toHaveCount(0);
  await expect(list.getByRole('listitem')).toHaveCount(1);
  // Name and lifetime stay; the password is cleared.
  await expect(form.getByLabel('Token name')).toHaveValue('nightly export');
  await expect(form.getByLabel('Your password')).toHaveValue('');

  await form.getByLabel('Your password').fill(account.password);
  await form.getByRole('button', { name: 'Create token' }).click();
  const notice = page.getByRole('region', { name: 'New API token' });
  // The new token takes the focus (it is shown once), and Done gives it back to the button that made it.
  await expect(notice.getByRole('textbox', { name: 'New token' })).toBeFocused();
  const token = await notice.getByRole('textbox', { name: 'New token' }).inputValue();
  expect(token).toMatch(/^ens_\S{20,}$/);

  const item = list.getByRole('listitem').filter({ hasText: 'nightly export' });
  await expect(item).toContainText('Never used');
  const in30Days = new Date(Date.now() + 30 * 24 * 60 * 60_000);
  const expected = in30Days.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
  await expect(item).toContainText(`Expires ${expected}`);

  expect(await meStatus({ token })).toBe(200);
  await notice.getByRole('button', { name: 'Done' }).click();
  await expect(notice).toHaveCount(0);
  await expect(form.getByRole('button', { name: 'Create token' })).toBeFocused();
  await page.reload();
  await expect(item).toContainText(/Last used less than a minute ago/, PAGE_DATA);
});

test('sign out everywhere says it revokes tokens, ends this session and every API token', async ({ page, account, accounts }) => {
  const other = await accounts.create('bystander');
  await page.goto('/settings');
  await expect(page.getByText(/This also revokes all your API tokens/)).toBeVisible(PAGE_DATA);
  await page.getByRole('button', { name: 'Sign out everywhere…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
  await expect(dialog).toContainText('every API token you have is revoked');
  // Cancel changes nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await meStatus({ token: account.token })).toBe(200);

  await page.getByRole('button', { name: 'Sign out everywhere…' }).click();
  await dialog.getByRole('button', { name: 'Sign out everywhere and revoke tokens' }).click();
  await expect(page).toHaveURL(/\/sign-in/, PAGE_DATA);
  expect(await meStatus({ token: account.token })).toBe(401);
  expect(await meStatus({ storageState: account.storageState })).toBe(401);
  // Another account is untouched.
  expect(await meStatus({ token: other.token })).toBe(200);
});
