import type { APIRequestContext, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { createAgent, createConversation, PAGE_DATA } from './support/seed';
import { createTeam } from './support/team-flows';

/**
 * Deleting a conversation (ADR 050), as a person does it: the Delete control beside each conversation in the list
 * and in the chat's header, the one confirm dialog (Cancel focused first, Escape keeps the conversation), the list
 * without it afterwards. Its delegated child goes with it (its run answers 404 after).
 */

const REPLY = { timeout: 10_000 };
/** A conversation's row in the list: the list item holding the link named after its agent. */
const row = (page: Page, agentName: string) =>
  page.getByRole('main').getByRole('listitem').filter({ has: page.getByRole('link', { name: new RegExp(`^${agentName}\\b`) }) });
const dialog = (page: Page) => page.getByRole('dialog', { name: 'Delete conversation?' });

/** A conversation whose one run delegated a child; answers its id and the child's run id once both finished. */
async function delegatingConversation(api: APIRequestContext, name: string): Promise<{ id: string; childRunId: string }> {
  const agent = await createAgent(api, { name });
  const { id } = await createConversation(api, agent.id);
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, {
    data: { text: `/call task ${JSON.stringify({ description: 'look', prompt: '/reply child done' })}` },
  });
  expect(sent.status(), await sent.text()).toBe(202);
  const { run } = (await sent.json()) as { run: { id: string } };
  await expect
    .poll(async () => ((await (await api.get(`/api/v1/runs/${run.id}`)).json()) as { run: { status: string } }).run.status, REPLY)
    .toBe('success');
  const children = (await (await api.get(`/api/v1/runs/${run.id}/children`)).json()) as { children: Array<{ childRunId: string | null }> };
  const childRunId = children.children[0]?.childRunId;
  expect(childRunId, 'the run delegated no child').toBeTruthy();
  return { id, childRunId: childRunId! };
}

test('from the list, with the keyboard: Delete opens the confirm dialog, Cancel keeps it, confirming removes it and its child', async ({
  page,
  api,
}) => {
  const doomed = await delegatingConversation(api, 'Doomed');
  const keeper = await createAgent(api, { name: 'Keeper' });
  await createConversation(api, keeper.id);
  expect((await api.get(`/api/v1/runs/${doomed.childRunId}`)).status()).toBe(200);

  await page.goto('/conversations');
  await expect(row(page, 'Doomed')).toBeVisible(PAGE_DATA);
  // The Delete control is the next stop after its conversation's link.
  await row(page, 'Doomed').getByRole('link').focus();
  await page.keyboard.press('Tab');
  const deleteButton = page.getByRole('button', { name: 'Delete conversation with Doomed' });
  await expect(deleteButton).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(dialog(page)).toBeVisible();
  await expect(dialog(page)).toContainText('conversations of the tasks it delegated');
  // Cancel has focus first, so Enter never deletes by accident.
  await expect(dialog(page).getByRole('button', { name: 'Keep conversation' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog(page)).toBeHidden();
  await expect(row(page, 'Doomed')).toBeVisible();
  await expect(deleteButton).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(dialog(page)).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(dialog(page).getByRole('button', { name: 'Delete conversation' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog(page)).toBeHidden();
  await expect(row(page, 'Doomed')).toHaveCount(0);
  await expect(row(page, 'Keeper')).toBeVisible();
  // The button that opened the dialog went with its row: focus is on the heading above the list, not lost to <body>.
  await expect(page.getByRole('heading', { level: 1, name: 'Conversations' })).toBeFocused();

  expect((await api.get(`/api/v1/conversations/${doomed.id}`)).status()).toBe(404);
  expect((await api.get(`/api/v1/runs/${doomed.childRunId}`)).status()).toBe(404);
  // Still gone after a reload: the list is the server's, not a cache's.
  await page.reload();
  await expect(row(page, 'Keeper')).toBeVisible(PAGE_DATA);
  await expect(row(page, 'Doomed')).toHaveCount(0);
});

test('from the chat page: Escape keeps it; confirming goes back to the list, which no longer shows it', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Chatty' });
  const { id } = await createConversation(api, agent.id);
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Chatty' })).toBeVisible(PAGE_DATA);

  await page.getByRole('button', { name: 'Delete conversation with Chatty' }).click();
  await expect(dialog(page)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog(page)).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/conversations/${id}$`));

  await page.getByRole('button', { name: 'Delete conversation with Chatty' }).click();
  await dialog(page).getByRole('button', { name: 'Delete conversation' }).click();
  await expect(page).toHaveURL(/\/conversations$/, PAGE_DATA);
  await expect(page.getByRole('heading', { level: 1, name: 'Conversations' })).toBeVisible();
  await expect(page.getByText('No conversations yet')).toBeVisible(PAGE_DATA);
  expect((await api.get(`/api/v1/conversations/${id}`)).status()).toBe(404);
});

test('while a run works the dialog says to stop it first and stays open; nothing is deleted', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Sleeper' });
  const { id } = await createConversation(api, agent.id);
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text: '/sleep 8000\n/reply late' } });
  expect(sent.status()).toBe(202);
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Sleeper' })).toBeVisible(PAGE_DATA);

  await page.getByRole('button', { name: 'Delete conversation with Sleeper' }).click();
  await dialog(page).getByRole('button', { name: 'Delete conversation' }).click();
  await expect(dialog(page).getByRole('alert')).toContainText('stop the run first');
  await expect(dialog(page)).toBeVisible();
  expect((await api.get(`/api/v1/conversations/${id}`)).status()).toBe(200);
  await dialog(page).getByRole('button', { name: 'Keep conversation' }).click();
  await expect(dialog(page)).toBeHidden();
});

test('a team member’s conversation offers no Delete (it would always be refused): the list and the chat name its team instead', async ({
  page,
  api,
}) => {
  const team = await createTeam(api, 'Kept crew', [{ name: 'Drafter' }, { name: 'Proofer' }]);
  const drafter = team.members.find((m) => m.name === 'Drafter')!;
  const own = await createAgent(api, { name: 'Loner' });
  await createConversation(api, own.id);

  await page.goto('/conversations');
  const memberRow = row(page, 'Drafter');
  await expect(memberRow).toBeVisible(PAGE_DATA);
  await expect(memberRow.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
  await expect(memberRow).toContainText('Part of the team Kept crew; to delete this conversation, delete the team first.');
  // A conversation of the person's own keeps its Delete.
  await expect(row(page, 'Loner').getByRole('button', { name: 'Delete conversation with Loner' })).toBeVisible();

  await page.goto(`/conversations/${drafter.conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Drafter' })).toBeVisible(PAGE_DATA);
  await expect(page.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
  await expect(page.getByRole('main')).toContainText('Part of the team Kept crew; to delete this conversation, delete the team first.');
  const teamLink = page.getByRole('main').getByRole('link', { name: 'Kept crew', exact: true });
  await teamLink.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/teams/${team.id}$`), PAGE_DATA);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test('a team member’s row keeps its title the row’s width and puts the team’s note below it', async ({ page, api }) => {
    await createTeam(api, 'Kept crew', [{ name: 'Drafter' }, { name: 'Proofer' }]);
    await page.goto('/conversations');
    const memberRow = row(page, 'Drafter');
    await expect(memberRow).toBeVisible(PAGE_DATA);
    const link = await memberRow.getByRole('link', { name: /^Drafter\b/ }).boundingBox();
    const note = await memberRow.getByText('Part of the team', { exact: false }).boundingBox();
    const whole = await memberRow.boundingBox();
    // What must not happen: the note beside the title, leaving the title a narrow column (it took half the row).
    expect(link!.width).toBeGreaterThan(whole!.width * 0.9);
    expect(note!.y).toBeGreaterThanOrEqual(link!.y + link!.height - 1);
    const overflow = await measureHorizontalOverflow(page);
    expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
  });
});
