import AxeBuilder from '@axe-core/playwright';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { BASE_URL } from './env';

test.use({ storageState: { cookies: [], origins: [] } });

/**
 * The header is translucent (white at 95 %) and sticky, so a page scrolls under it: the email shown under the name
 * of someone who gave one must keep 4.5:1 (WCAG AA) over whatever passes beneath, a chat's indigo bubble included.
 */
test('the email under the name in the header keeps its contrast over a chat bubble scrolled beneath it', async ({ page }) => {
  const email = `named-${crypto.randomUUID().slice(0, 8)}@e2e.test`;
  await page.goto('/sign-up');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByLabel('Name').fill('Ada Trial');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/agents$/, { timeout: 10_000 });

  // The browser's own session, as the page's scripts would send it (a cookie write names the app's origin).
  const headers = { origin: BASE_URL };
  const agent = await page.request.post('/api/v1/agents', { data: { name: 'Echo' }, headers });
  expect(agent.status(), await agent.text()).toBe(201);
  const conversation = await page.request.post('/api/v1/conversations', { data: { agentId: ((await agent.json()) as { id: string }).id }, headers });
  expect(conversation.status(), await conversation.text()).toBe(201);
  const { id } = (await conversation.json()) as { id: string };
  const lines = Array.from({ length: 30 }, (_, i) => `Line ${String(i + 1).padStart(2, '0')} of a long message that fills the bubble's width`);
  const sent = await page.request.post(`/api/v1/conversations/${id}/messages`, { data: { text: lines.join('\n'), idempotencyKey: crypto.randomUUID() }, headers });
  expect(sent.status(), await sent.text()).toBe(202);

  await page.setViewportSize({ width: 1280, height: 720 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`/conversations/${id}`);
  const bubbleLine = page.getByText('Line 15 of a long message', { exact: false });
  await expect(bubbleLine).toBeVisible({ timeout: 10_000 });
  // Put the middle of the person's bubble right under the header.
  await bubbleLine.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 20));
  const emailLine = page.getByTestId('user-email');
  await expect(emailLine).toHaveText(email);

  const results = await new AxeBuilder({ page }).include('[data-testid="user-email"]').withRules(['color-contrast']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.any[0]?.message).join(' | ')}`)).toEqual([]);
});
