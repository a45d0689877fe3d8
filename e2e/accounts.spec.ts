import { request as playwrightRequest } from '@playwright/test';
import crypto from 'node:crypto';
import { BASE_URL } from './env';
import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@e2e.test`;

/**
 * GET /api/v1/me from a context with no cookies at all, so only the Bearer token can authenticate it (a request
 * context made inside a test otherwise starts from the test's signed-in storage state).
 */
async function meWithToken(token: string): Promise<{ status: number; body: unknown }> {
  const ctx = await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    const res = await ctx.get('/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status(), body: await res.json() };
  } finally {
    await ctx.dispose();
  }
}

test.describe('through the forms', () => {
  // These tests are about the sign-in and sign-up forms themselves, so they start signed out.
  test.use({ storageState: { cookies: [], origins: [] } });

  test('sign up lands on the agents page; sign out, then sign in again with the form', async ({ page }) => {
    const email = uniqueEmail('signup');
    const password = 'correct horse battery';

    await page.goto('/sign-up');
    await expect(page.getByRole('heading', { level: 1, name: 'Create account' })).toBeVisible();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Name').fill('Ada Tester');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
    await expect(page.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible();
    await expect(page.getByTestId('user-email')).toHaveText(email);
    await expect(page.getByText('No agents yet')).toBeVisible(PAGE_DATA);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in(\?|$)/, PAGE_DATA);
    await page.goto('/agents');
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fagents$/);

    await page.getByLabel('Email').fill(email.toUpperCase()); // emails compare without case
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
    await expect(page.getByTestId('user-email')).toHaveText(email);
  });

  test('sign up refuses a short password next to the field and keeps what was typed', async ({ page }) => {
    const email = uniqueEmail('short');
    await page.goto('/sign-up');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();

    const password = page.getByLabel('Password');
    await expect(password).toHaveAttribute('aria-invalid', 'true');
    await expect(password).toHaveAccessibleDescription(/Must be at least 8 characters/);
    await expect(page.getByLabel('Email')).toHaveValue(email);
    await expect(page).toHaveURL(/\/sign-up$/);
  });

  test('a wrong password says "Invalid email or password", keeps the email, and the right one then works', async ({
    page,
    accounts,
  }) => {
    const account = await accounts.create('wrong-password');
    await page.goto('/settings');
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fsettings$/);

    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(`${account.password}-nope`);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await expect(page.getByRole('alert').filter({ hasText: 'Invalid email or password' })).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in/);
    await expect(page.getByLabel('Email')).toHaveValue(account.email);
    await expect(page.getByLabel('Password')).toHaveValue('');
    await expect(page.getByLabel('Password')).toBeFocused();

    // An unknown account gets exactly the same answer (no hint about which part was wrong).
    await page.getByLabel('Email').fill(uniqueEmail('nobody'));
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid email or password' })).toBeVisible();
    await expect(page.getByLabel('Password')).toHaveValue('');

    // The way back survives the failures: the right password opens the page that was asked for.
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/settings$/, PAGE_DATA);
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  });
});

test('an API token created in Settings is shown once and works as a Bearer token until revoked', async ({ page, account }) => {
  test.slow(); // create, reload, revoke twice: many round trips
  await page.goto('/settings');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  // The fixture's own token (made by the user CLI) is already listed.
  const list = page.getByRole('list', { name: 'Your API tokens' });
  await expect(list.getByRole('listitem')).toHaveCount(1, PAGE_DATA);

  await page.getByLabel('Token name').fill('laptop script');
  await page.getByLabel('Your password').fill(account.password);
  await page.getByRole('button', { name: 'Create token' }).click();

  const notice = page.getByRole('region', { name: 'New API token' });
  await expect(notice).toContainText('Token “laptop script” created');
  const field = notice.getByRole('textbox', { name: 'New token' });
  await expect(field).toHaveValue(/^ens_\S{20,}$/);
  const token = await field.inputValue();
  await expect(page.getByLabel('Token name')).toHaveValue('');
  await expect(list.getByRole('listitem')).toHaveCount(2);
  const item = list.getByRole('listitem').filter({ hasText: 'laptop script' });
  await expect(item).toContainText(`${token.slice(0, 10)}…`);

  const me = await meWithToken(token);
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ user: { id: account.userId, email: account.email } });

  // Shown once: after Done, and after a reload, the plain token is nowhere on the page.
  await notice.getByRole('button', { name: 'Done' }).click();
  await expect(notice).toBeHidden();
  await page.reload();
  await expect(item).toBeVisible(PAGE_DATA);
  await expect(page.getByRole('region', { name: 'New API token' })).toHaveCount(0);
  expect(await page.content()).not.toContain(token);

  // Revoking asks first; Cancel keeps the token working.
  await page.getByRole('button', { name: 'Revoke laptop script' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke token?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await meWithToken(token)).status).toBe(200);

  await page.getByRole('button', { name: 'Revoke laptop script' }).click();
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(dialog).toBeHidden();
  await expect(item).toHaveCount(0);
  await expect(list.getByRole('listitem')).toHaveCount(1);
  expect((await meWithToken(token)).status).toBe(401);
  // The other token is untouched.
  expect((await meWithToken(account.token)).status).toBe(200);
});
