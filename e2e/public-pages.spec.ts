import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { PAGE_DATA } from './support/seed';

/**
 * The home page and the account forms ship no JavaScript (ADR 062): Pages Router pages with their runtime off, forms
 * that post to route handlers, a refusal carried back in a one-time cookie. Checked on what `next start` serves.
 */
const PUBLIC_PAGES = ['/', '/sign-in', '/sign-up'] as const;
const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@e2e.test`;

test.describe('signed out', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  for (const path of PUBLIC_PAGES) {
    test(`${path} serves no script but the nonce'd theme script, and no script preload`, async ({ request }) => {
      const res = await request.get(path);
      expect(res.status()).toBe(200);
      expect(res.headers()['cache-control']).toBe('private, no-store');
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      // Must not happen: any script file (React, Next's router), a module preload, or a second inline script.
      expect(html).not.toMatch(/<script\b[^>]*\bsrc=/);
      expect(html).not.toMatch(/<link\b[^>]*\b(modulepreload|as="script")/);
      expect(scripts).toHaveLength(1);
      const nonce = /'nonce-([^']+)'/.exec(res.headers()['content-security-policy'] ?? '')?.[1];
      expect(nonce).toBeTruthy();
      expect(scripts[0]![1]).toContain(`nonce="${nonce}"`);
      expect(Buffer.byteLength(scripts[0]![2]!)).toBeLessThan(1000);
      expect(html).toMatch(/<link\b[^>]*rel="stylesheet"/);
      expect(html).toMatch(/<link\b[^>]*rel="icon"[^>]*href="\/icon\.svg"/);
    });
  }

  test('the theme follows the system, and a stored choice wins over it, before anything renders', async ({ browser }) => {
    const dark = await browser.newContext({ colorScheme: 'dark', storageState: { cookies: [], origins: [] } });
    const page = await dark.newPage();
    await page.goto('/sign-in');
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await expect(page.locator('html')).toHaveCSS('color-scheme', 'dark');
    await page.evaluate(() => localStorage.setItem('theme', 'light'));
    await page.reload();
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await dark.close();
  });

  test.describe('with JavaScript off', () => {
    test.use({ javaScriptEnabled: false });

    test('a person signs up, and signs in again after a refusal, with the browser running no script', async ({ page, context }) => {
      const email = uniqueEmail('nojs');
      const password = 'correct horse battery';
      await page.goto('/');
      await page.getByRole('link', { name: 'Sign in' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();

      await page.goto('/sign-up');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByLabel('Name').fill('李雷 🎻');
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
      await expect(page.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible();

      await context.clearCookies();
      await page.goto('/agents');
      await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fagents$/);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
      await expect(page.getByLabel('Email')).toHaveValue(email);
      await expect(page.getByLabel('Password')).toHaveValue('');
      await expect(page.getByLabel('Password')).toBeFocused();
      await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fagents$/);

      // Shown once: a reload is a fresh form.
      await page.reload();
      await expect(page.getByRole('alert')).toHaveCount(0);
      await expect(page.getByLabel('Email')).toHaveValue('');

      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
    });

    test('a refused name at the limit + 1 (CJK, emoji) comes back next to its field, as typed', async ({ page }) => {
      for (const [label, name] of [
        ['cjk', '名'.repeat(81)],
        ['emoji', '🎻'.repeat(81)],
      ] as const) {
        await page.goto('/sign-up');
        await page.getByLabel('Email').fill(uniqueEmail(label));
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByLabel('Name').fill(name);
        await page.getByRole('button', { name: 'Create account' }).click();
        await expect(page).toHaveURL(/\/sign-up$/);
        const field = page.getByLabel('Name');
        await expect(field).toHaveAttribute('aria-invalid', 'true');
        await expect(field).toHaveValue(name);
        await expect(field).toBeFocused();
      }
    });
  });

  test('a form post from another site is refused and signs nobody in', async ({ request, accounts }) => {
    const account = await accounts.create('foreign-post');
    const res = await request.post('/sign-in/submit', {
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      data: new URLSearchParams({ email: account.email, password: account.password }).toString(),
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    // Must not happen: a session cookie handed to the other site's visitor.
    expect(res.headersArray().filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value).join('\n')).not.toMatch(/session-token/);
  });
});

test('a signed-in visitor is sent on from every public page', async ({ page }) => {
  for (const path of PUBLIC_PAGES) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
  }
  await page.goto('/sign-in?callbackUrl=%2Fsettings');
  await expect(page).toHaveURL(/\/settings$/, PAGE_DATA);
});
