import { request as playwrightRequest, type Browser, type Page } from '@playwright/test';
import crypto from 'node:crypto';
import { BASE_URL } from './env';
import { expect, measureHorizontalOverflow, test, type Account } from './fixtures';
import { luminanceOf, PAGE_DATA } from './support/seed';

/**
 * The Admin page: invitation links, disabling an account, usage, and that nobody else can see it.
 * Admins are made on purpose (`accounts.create(label, { admin: true })`); the `account` fixture is a member.
 */

const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@e2e.test`;

/** A browser with no session (browser.newContext() alone would inherit the test's signed-in storageState). */
const signedOut = (browser: Browser) => browser.newContext({ storageState: { cookies: [], origins: [] } });

async function adminPage(browser: Browser, admin: Account): Promise<Page> {
  const context = await browser.newContext({ storageState: admin.storageState });
  const page = await context.newPage();
  await page.goto('/admin');
  await expect(page.getByRole('heading', { level: 1, name: 'Admin' })).toBeVisible(PAGE_DATA);
  return page;
}

test('an admin creates an invitation link; a signed-out visitor signs up with it; the link then is used up', async ({ browser, accounts }) => {
  test.setTimeout(60_000); // three browsers and six page loads on a busy machine
  const admin = await accounts.create('admin', { admin: true });
  const page = await adminPage(browser, admin);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveAttribute('aria-current', 'page');

  await page.getByLabel('Expires after').selectOption('1');
  await page.getByLabel('Note').fill('for Gus');
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const notice = page.getByRole('region', { name: 'New invitation link' });
  const linkField = notice.getByLabel('Invitation link');
  await expect(linkField).toHaveValue(new RegExp(`^${BASE_URL.replace(/[.]/g, '\\.')}/sign-up\\?invite=inv_[\\w-]{32}$`));
  const link = await linkField.inputValue();
  const invitations = page.getByRole('list', { name: 'Invitations' });
  await expect(invitations.getByRole('listitem').filter({ hasText: 'for Gus' })).toContainText('Open');

  // A visitor who is not signed in follows the link.
  const visitorContext = await signedOut(browser);
  const visitor = await visitorContext.newPage();
  await visitor.goto(link);
  await expect(visitor.getByText('You were invited to this server.')).toBeVisible();
  const gus = uniqueEmail('gus');
  await visitor.getByLabel('Email').fill(gus);
  await visitor.getByLabel('Password').fill('correct horse battery');
  await visitor.getByRole('button', { name: 'Create account' }).click();
  await expect(visitor).toHaveURL(/\/agents$/, PAGE_DATA);
  await expect(visitor.getByTestId('user-email')).toHaveText(gus);
  // A member: no Admin link.
  await expect(visitor.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
  await visitorContext.close();

  await page.reload();
  const used = invitations.getByRole('listitem').filter({ hasText: 'for Gus' });
  await expect(used).toContainText('Used', PAGE_DATA);
  await expect(used).toContainText(`used by ${gus}`);
  await expect(used.getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Accounts' }).getByRole('listitem', { name: gus })).toBeVisible();

  // The same link a second time says plainly that it is spent. (The e2e server runs with ALLOW_SIGNUP=true, so the
  // ordinary form is offered beside that; with sign-up closed there is no form: test/auth/registration.test.ts.)
  const secondContext = await signedOut(browser);
  const second = await secondContext.newPage();
  await second.goto(link);
  await expect(second.getByText(/This invitation link is not valid any more .* but sign-up is open/)).toBeVisible();
  await secondContext.close();
  await page.context().close();
});

test('an admin revokes an open invitation link and it stops working', async ({ browser, accounts }) => {
  const admin = await accounts.create('admin', { admin: true });
  const page = await adminPage(browser, admin);
  await page.getByLabel('Note').fill('revoke me');
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const link = await page.getByRole('region', { name: 'New invitation link' }).getByLabel('Invitation link').inputValue();
  expect(link).toContain('/sign-up?invite=');
  await page.getByRole('button', { name: 'Revoke invitation revoke me' }).click();
  await expect(page.getByRole('list', { name: 'Invitations' }).getByRole('listitem').filter({ hasText: 'revoke me' })).toContainText('Revoked', PAGE_DATA);

  const visitorContext = await signedOut(browser);
  const visitor = await visitorContext.newPage();
  await visitor.goto(link);
  await expect(visitor.getByText(/This invitation link is not valid any more/)).toBeVisible();
  await visitorContext.close();
  await page.context().close();
});

test('the admin disables an account: its next page load is signed out, its token answers 401 (for good), it cannot sign in until enabled', async ({
  browser,
  accounts,
}) => {
  test.setTimeout(60_000); // two browsers, several page loads and a form sign-in
  const admin = await accounts.create('admin', { admin: true });
  const victim = await accounts.create('victim');
  const victimContext = await browser.newContext({ storageState: victim.storageState });
  const victimPage = await victimContext.newPage();
  await victimPage.goto('/agents');
  await expect(victimPage.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible(PAGE_DATA);

  const page = await adminPage(browser, admin);
  const row = page.getByRole('list', { name: 'Accounts' }).getByRole('listitem', { name: victim.email });
  await expect(row.getByRole('definition')).toHaveCount(6);
  // Cost beside the model tokens (ADR 048): an account with no runs has spent nothing, known.
  await expect(row.getByRole('term').nth(2)).toHaveText('Cost');
  await expect(row.getByRole('definition').nth(2)).toHaveText('$0.00');
  await row.getByRole('button', { name: `Disable ${victim.email}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Disable account?' });
  await expect(dialog).toContainText(victim.email);
  await dialog.getByRole('button', { name: 'Disable account' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText('Disabled', PAGE_DATA);
  // The admin's own row has no Disable button.
  await expect(page.getByRole('list', { name: 'Accounts' }).getByRole('listitem', { name: admin.email }).getByRole('button')).toHaveCount(0);

  await victimPage.reload();
  await expect(victimPage).toHaveURL(/\/sign-in\?callbackUrl=%2Fagents$/, PAGE_DATA);
  // No cookies (a request context made inside a test otherwise starts from the test's session): the token alone.
  const api = await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  expect((await api.get('/api/v1/me', { headers: { authorization: `Bearer ${victim.token}` } })).status()).toBe(401);

  await victimPage.getByLabel('Email').fill(victim.email);
  await victimPage.getByLabel('Password').fill(victim.password);
  await victimPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(victimPage.getByRole('alert').filter({ hasText: 'Invalid email or password' })).toBeVisible();

  // Enabled again: the person can sign in, but the old token stays dead (disabling revoked it; ADR 041).
  await row.getByRole('button', { name: `Enable ${victim.email}` }).click();
  await expect(row).not.toContainText('Disabled', PAGE_DATA);
  expect((await api.get('/api/v1/me', { headers: { authorization: `Bearer ${victim.token}` } })).status()).toBe(401);
  await victimPage.getByLabel('Email').fill(victim.email);
  await victimPage.getByLabel('Password').fill(victim.password);
  await victimPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(victimPage).toHaveURL(/\/agents$/, PAGE_DATA);
  await api.dispose();
  await victimContext.close();
  await page.context().close();
});

test('a member gets the same 404 on /admin as on a page that does not exist, and no Admin link', async ({ page, api }) => {
  await page.goto('/agents');
  await expect(page.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible(PAGE_DATA);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);

  // The 404 page's own text; on /admin it sits inside the signed-in shell, as for a missing agent or conversation.
  const notFoundText = (p: Page) => p.locator('main').filter({ has: p.getByRole('heading', { name: 'Page not found' }) }).last().innerText();
  const missing = await page.goto('/no-such-page');
  const missingText = await notFoundText(page);
  const admin = await page.goto('/admin');
  expect(admin?.status()).toBe(404);
  expect(missing?.status()).toBe(404);
  expect(await notFoundText(page)).toBe(missingText);
  await expect(page.getByRole('heading', { name: 'Admin' })).toHaveCount(0);

  expect((await api.get('/api/v1/admin/users')).status()).toBe(404);
  expect((await api.post('/api/v1/admin/invitations', { data: { expiresInDays: 7 } })).status()).toBe(404);
});

test('the admin page at 390×844 in dark mode and at tablet width: dark colours, nothing sticks out sideways', async ({ browser, accounts }) => {
  const admin = await accounts.create('admin-with-a-rather-long-address-for-wrapping', { admin: true });
  const page = await adminPage(browser, admin);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).click();
  await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
  await page.getByLabel('Note').fill('n'.repeat(120));
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  await expect(page.getByRole('region', { name: 'New invitation link' })).toBeVisible();
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
  await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');

  expect(await luminanceOf(page.locator('body'), 'background-color')).toBeLessThan(0.05);
  expect(await luminanceOf(page.getByRole('heading', { level: 1, name: 'Admin' }), 'color')).toBeGreaterThan(0.5);
  const phone = await measureHorizontalOverflow(page);
  expect(phone.px, `sticks out: ${phone.offenders.join(', ')}`).toBeLessThanOrEqual(0);

  // A tablet keeps the sections behind the menu; from the lg breakpoint (1024 px) all eight, Admin included, sit in
  // the header bar. Neither may stick out, whatever fonts the browser has.
  await page.setViewportSize({ width: 768, height: 1024 });
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toBeVisible();
  const tablet = await measureHorizontalOverflow(page);
  expect(tablet.px, `sticks out: ${tablet.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(page.getByRole('button', { name: 'Close menu' })).toBeHidden();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toBeVisible();
  const laptop = await measureHorizontalOverflow(page);
  expect(laptop.px, `sticks out: ${laptop.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  await page.context().close();
});
