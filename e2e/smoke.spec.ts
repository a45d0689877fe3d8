import { expect, test } from '@playwright/test';

// The cheapest proof that the production build starts, serves its database and guards its pages.
test('health answers without credentials', async ({ request }) => {
  const res = await request.get('/api/health');
  expect(res.status()).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true, db: 'ok' });
});

test('a signed-out visitor of an app page is sent to sign in and back', async ({ page }) => {
  await page.goto('/teams');
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fteams$/);
});
