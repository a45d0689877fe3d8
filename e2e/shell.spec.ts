import crypto from 'node:crypto';
import { expect, horizontalOverflow, measureHorizontalOverflow, test } from './fixtures';

const DARK = /(^|\s)dark(\s|$)/;
const APP_PAGES = ['/agents', '/batches', '/conversations', '/settings', '/teams'] as const;

test.describe('signed in', () => {
  test('the theme switch applies dark, light and system, and the choice survives a reload', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/teams');
    const html = page.locator('html');
    const theme = page.getByRole('radiogroup', { name: 'Theme' });
    // The server renders no choice selected (it can't know the stored theme): a checked one means hydrated.
    await expect(theme.getByRole('radio', { name: 'System' })).toBeChecked();

    await theme.getByRole('radio', { name: 'Dark' }).click();
    await expect(html).toHaveClass(DARK);
    await page.reload();
    await expect(html).toHaveClass(DARK);
    await expect(theme.getByRole('radio', { name: 'Dark' })).toBeChecked();
    await page.goto('/settings');
    await expect(html).toHaveClass(DARK);

    await theme.getByRole('radio', { name: 'Light' }).click();
    await expect(html).not.toHaveClass(DARK);

    // "System" follows the operating system's preference, live.
    await theme.getByRole('radio', { name: 'System' }).click();
    await expect(html).not.toHaveClass(DARK);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(html).toHaveClass(DARK);
    await page.reload();
    await expect(html).toHaveClass(DARK);
    await expect(theme.getByRole('radio', { name: 'System' })).toBeChecked();
  });

  test('the header marks the current section and shows who is signed in', async ({ page, account }) => {
    await page.goto('/teams');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Teams' })).toHaveAttribute('aria-current', 'page');
    await expect(nav.getByRole('link', { name: 'Agents' })).not.toHaveAttribute('aria-current');
    await expect(page.getByTestId('user-email')).toHaveText(account.email);

    await nav.getByRole('link', { name: 'Agents' }).click();
    await expect(page).toHaveURL(/\/agents$/);
    await expect(nav.getByRole('link', { name: 'Agents' })).toHaveAttribute('aria-current', 'page');

    // Every list page has its section, batches too: the list of a person's batches is one click from anywhere.
    await nav.getByRole('link', { name: 'Batches' }).click();
    await expect(page).toHaveURL(/\/batches$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Batches' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Batches' })).toHaveAttribute('aria-current', 'page');
  });

  for (const width of [360, 390, 768, 1024]) {
    test(`no page scrolls sideways at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 844 });
      for (const path of APP_PAGES) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        // Pages arrive with their data; 'networkidle' would never come, since live pages keep an event stream open.
        await page.waitForLoadState('load');
        const overflow = await measureHorizontalOverflow(page);
        expect(overflow.px, `${path} sticks out at ${width} px: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
      }
    });
  }

  test('on a phone the sections live behind a menu button', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/teams');
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();

    await page.getByRole('button', { name: 'Open menu' }).click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();

    await page.getByRole('button', { name: 'Open menu' }).click();
    await expect(nav.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible();
  });

  test('on a phone Escape closes the menu and gives focus back to its button', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/teams');
    const nav = page.getByRole('navigation', { name: 'Main' });
    const menuButton = page.getByRole('button', { name: /^(Open|Close) menu$/ });

    // Escape with focus on the button that opened it.
    await menuButton.click();
    await expect(nav).toBeVisible();
    await expect(menuButton).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Escape');
    await expect(nav).toBeHidden();
    await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    await expect(menuButton).toHaveAccessibleName('Open menu');
    await expect(menuButton).toBeFocused();

    // Escape from inside the panel (a link reached with Tab).
    await page.keyboard.press('Enter');
    await expect(nav).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(nav.getByRole('link').first()).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(nav).toBeHidden();
    await expect(menuButton).toBeFocused();
  });

  test('sign out ends the session and returns to sign in', async ({ page }) => {
    await page.goto('/teams');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect(page).toHaveURL(/\/sign-in(\?|$)/);

    await page.goto('/agents');
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fagents$/);
  });

  test('the home page takes a signed-in person to their agents', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/agents$/);
  });

  test('a missing or another owner’s agent edit page and team Runs page answer 404 too, inside the shell with one main', async ({ page, accounts }) => {
    const otherApi = await accounts.apiFor(await accounts.create('other-owner'));
    const theirAgent = (await (await otherApi.post('/api/v1/agents', { data: { name: 'Theirs' } })).json()) as { id: string };
    const theirAgent2 = (await (await otherApi.post('/api/v1/agents', { data: { name: 'Theirs too' } })).json()) as { id: string };
    const created = await otherApi.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Their team', goal: 'Private', agentIds: [theirAgent.id, theirAgent2.id] } });
    expect(created.status(), await created.text()).toBe(201);
    const theirTeam = (await created.json()) as { id: string };
    const paths = [`/agents/${crypto.randomUUID()}/edit`, `/agents/${theirAgent.id}/edit`, `/teams/${crypto.randomUUID()}/runs`, `/teams/${theirTeam.id}/runs`, '/admin'];
    for (const path of paths) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
      // What must not happen: a landmark inside a landmark of the same kind.
      await expect(page.getByRole('main')).toHaveCount(1);
      await expect(page.getByText(/Theirs|Their team/)).toHaveCount(0);
    }
  });
});

test.describe('signed out', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test('app pages redirect to sign in with the way back', async ({ page }) => {
    for (const path of APP_PAGES) {
      await page.goto(path);
      await expect(page).toHaveURL(new RegExp(`/sign-in\\?callbackUrl=${encodeURIComponent(path)}$`));
    }
  });

  test('the home page offers sign in and account creation', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in');
    await expect(page.getByRole('link', { name: 'Create account' })).toHaveAttribute('href', '/sign-up');
  });

  test('pages link the app icon, and it loads: no 404 for a favicon', async ({ page }) => {
    const missing: string[] = [];
    page.on('response', (res) => {
      if (res.status() === 404) missing.push(res.url());
    });
    await page.goto('/');
    const icon = page.locator('head link[rel="icon"]');
    await expect(icon).toHaveCount(1);
    const href = await icon.getAttribute('href');
    const res = await page.request.get(href!);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('image/svg+xml');
    // The browser asks for the icon the page names, not /favicon.ico: nothing on the page answered 404.
    await page.waitForLoadState('load');
    expect(missing).toEqual([]);
  });

  test('an unknown address answers 404 with a way home', async ({ page }) => {
    const response = await page.goto('/no-such-page');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Go home' })).toBeVisible();
  });
});

test.describe('a person who gave a long name at sign-up', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  // 80 characters, the limit: wide Latin without a space, CJK and emoji. The 50 W's alone are wider than the phone
  // menu at 768 px, so the name is cut whatever fonts the machine has (one without CJK or emoji fonts draws those as
  // narrow boxes, and 30 W's then fit).
  const NAME = `${'W'.repeat(50)}${'名'.repeat(20)}${'🎻'.repeat(10)}`;

  test('the header shows the name, cut with an ellipsis, with the email under it; nothing sticks out at 390, 768, 1024 or 1280 px', async ({ page }) => {
    const email = `long-name-${crypto.randomUUID().slice(0, 8)}@e2e.test`;
    await page.goto('/sign-up');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Name').fill(NAME);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page).toHaveURL(/\/agents$/, { timeout: 10_000 });

    const truncated = (locator: ReturnType<typeof page.getByTestId>) => locator.evaluate((el) => el.scrollWidth > el.clientWidth);
    await page.setViewportSize({ width: 1280, height: 844 });
    const name = page.getByTestId('user-name');
    await expect(name).toBeVisible();
    await expect(name).toHaveText(NAME);
    await expect(page.getByTestId('user-email')).toHaveText(email);
    await expect(page.getByTestId('user-email')).toBeVisible();
    expect(await truncated(name)).toBe(true);
    const overflowWide = await measureHorizontalOverflow(page);
    expect(overflowWide.px, `the header sticks out at 1280 px: ${overflowWide.offenders.join(', ')}`).toBeLessThanOrEqual(0);

    for (const width of [390, 768, 1024]) {
      await page.setViewportSize({ width, height: 844 });
      const menuButton = page.getByRole('button', { name: 'Open menu' });
      if (width < 1024) {
        await menuButton.click();
        const inMenu = page.getByText(NAME, { exact: true }).filter({ visible: true });
        await expect(inMenu).toHaveCount(1);
        expect(await inMenu.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
        await expect(page.getByText(email, { exact: true }).filter({ visible: true })).toHaveCount(1);
      } else {
        await expect(menuButton).toBeHidden();
      }
      const overflow = await measureHorizontalOverflow(page);
      expect(overflow.px, `the page sticks out at ${width} px: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
      if (width < 1024) await page.getByRole('button', { name: 'Close menu' }).click();
    }
  });
});
