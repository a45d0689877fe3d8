import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { RESULT_TIMEOUT, createAgent } from './support/team-flows';

test.describe.configure({ timeout: 60_000 });

/**
 * Below 1024 px the section links, and the Inbox's count with them, sit in the closed menu: the menu's button
 * carries the count, seen as a badge and heard in its name, so a phone shows that something waits.
 */
test('on a phone the closed menu’s button shows how much waits in the Inbox', async ({ page, api }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/agents');
  const menuButton = page.getByRole('button', { name: /^(Open|Close) menu/ });
  await expect(menuButton).toHaveAccessibleName('Open menu');

  const agent = await createAgent(api, { name: 'Careful', toolGroups: ['utility'], approvalTools: ['calculator'] });
  const created = await api.post('/api/v1/conversations', { data: { agentId: agent.id } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, {
    data: { text: '/call calculator {"expression":"6*7"}', idempotencyKey: crypto.randomUUID() },
  });
  expect(sent.status(), await sent.text()).toBe(202);

  // Pushed live to the page already open.
  await expect(menuButton).toHaveAccessibleName('Open menu, 1 waiting', { timeout: RESULT_TIMEOUT });
  await expect(menuButton).toHaveText('1');
  await menuButton.click();
  await expect(menuButton).toHaveAccessibleName('Close menu');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox, 1 waiting', exact: true }).last()).toBeVisible();
});
