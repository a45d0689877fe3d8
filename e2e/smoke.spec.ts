import { expect, test } from '@playwright/test';

// The cheapest proof that the production build starts and its database answers.
test('health answers without credentials', async ({ request }) => {
  const res = await request.get('/api/health');
  expect(res.status()).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true, db: 'ok' });
});
