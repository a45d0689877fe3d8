import type { APIRequestContext, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, measureHorizontalOverflow, test } from './fixtures';

// Accounts are made per test and runs go through the real scheduler (request, then receipt) on a busy
// two-core machine: more than the default 30 s per test, while each single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });

/**
 * The page arrives with its data (server-rendered), but the message box takes input only once React has hydrated
 * it (read-only until then), which is slow on a busy machine.
 */
const HYDRATED = { timeout: 10_000 };
/** A member's run, its receipt's run and the pushes that announce them. */
const RESULT = { timeout: 20_000 };

type Agent = { id: string; name: string };
type Team = { id: string; name: string; members: Array<{ id: string; name: string; conversationId: string | null }> };

async function createAgent(api: APIRequestContext, name: string): Promise<Agent> {
  const res = await api.post('/api/v1/agents', { data: { name, description: `${name} for the mention test` } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Agent;
}

async function createTeam(api: APIRequestContext, name: string, agents: Agent[]): Promise<Team> {
  const res = await api.post('/api/v1/teams', {
    data: { requestId: crypto.randomUUID(), name, goal: 'Answer mentions', agentIds: agents.map((a) => a.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

async function createConversation(api: APIRequestContext, agentId: string): Promise<string> {
  const res = await api.post('/api/v1/conversations', { data: { agentId } });
  expect(res.status(), await res.text()).toBe(201);
  // The reply is the conversation itself (lib/types/conversation.ts Conversation), not wrapped.
  return ((await res.json()) as { id: string }).id;
}

const composer = (page: Page) => page.getByRole('combobox', { name: 'Message', exact: true });
const history = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const listbox = (page: Page) => page.getByRole('listbox', { name: 'Team members to mention' });

async function openConversation(page: Page, id: string, agentName: string) {
  await page.goto(`/conversations/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: agentName })).toBeVisible();
  await expect(composer(page)).toBeEditable(HYDRATED);
}

/** The option the textarea points at with aria-activedescendant. */
async function activeOptionText(page: Page): Promise<string> {
  const id = await composer(page).getAttribute('aria-activedescendant');
  expect(id, 'the textarea names no active option').toBeTruthy();
  return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
}

test('mention a team member from an ordinary conversation with the keyboard; the result comes back here', async ({ page, api }) => {
  const team = await createTeam(api, 'Launch crew', [await createAgent(api, 'Researcher'), await createAgent(api, 'Writer')]);
  const solo = await createAgent(api, 'Solo');
  const conversationId = await createConversation(api, solo.id);
  await openConversation(page, conversationId, 'Solo');

  const box = composer(page);
  await box.click();
  await box.pressSequentially('@');
  await expect(listbox(page)).toBeVisible();
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await expect(box).toHaveAttribute('aria-controls', (await listbox(page).getAttribute('id'))!);
  const options = listbox(page).getByRole('option');
  await expect(options).toHaveText(['@Launch crew / Researcher', '@Launch crew / Writer']);

  // ArrowDown/ArrowUp move the active option and wrap at both ends.
  expect(await activeOptionText(page)).toBe('@Launch crew / Researcher');
  await box.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  expect(await activeOptionText(page)).toBe('@Launch crew / Writer');
  await box.press('ArrowDown');
  expect(await activeOptionText(page)).toBe('@Launch crew / Researcher');
  await box.press('ArrowUp');
  expect(await activeOptionText(page)).toBe('@Launch crew / Writer');

  // Escape closes the list and leaves the text; typing on filters over the label, case-insensitively.
  await box.press('Escape');
  await expect(listbox(page)).toHaveCount(0);
  await expect(box).toHaveAttribute('aria-expanded', 'false');
  await expect(box).toHaveValue('@');
  await box.press('Backspace');
  await box.pressSequentially('@WRI');
  await expect(options).toHaveText(['@Launch crew / Writer']);

  // Enter picks: the @query text goes, a chip comes.
  await box.press('Enter');
  await expect(listbox(page)).toHaveCount(0);
  await expect(box).toHaveValue('');
  const chip = page.getByRole('button', { name: 'Remove recipient Launch crew / Writer' });
  await expect(chip).toBeVisible();
  await expect(chip).toHaveText(/@Launch crew \/ Writer\s*×/);

  await box.pressSequentially('/reply Done by member');
  await box.press('Control+Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Sent to Launch crew / Writer.' })).toBeVisible();
  await expect(box).toHaveValue('');
  await expect(chip).toHaveCount(0);

  // The person's message with its recipients, and the framework's note (not the agent speaking).
  await expect(history(page).getByText('/reply Done by member', { exact: true })).toBeVisible();
  await expect(history(page).getByText('Sent to: Launch crew / Writer', { exact: true })).toBeVisible();
  await expect(history(page).getByText('Queued a request to Launch crew / Writer. Each result will be returned to this conversation.')).toBeVisible();

  // No reload: the conversation's event stream announces the receipt's run and the agent's reply to it.
  const receipt = history(page).getByRole('article', { name: 'Result from Writer (completed)' });
  await expect(receipt).toBeVisible(RESULT);
  await expect(receipt).toContainText('Done by member');
  await expect(receipt).not.toContainText('ensemble-result');
  await expect(history(page).getByText('Received completed result from Writer: Done by member')).toBeVisible(RESULT);

  // The member's own conversation shows the request as a request from the person.
  const writer = team.members.find((m) => m.name === 'Writer')!;
  await openConversation(page, writer.conversationId!, 'Writer');
  const request = history(page).getByRole('article', { name: 'Request from You' });
  await expect(request).toBeVisible();
  await expect(request).toContainText('/reply Done by member');

  // Phones: nothing sticks out sideways with the receipt on screen and a chip in the composer.
  await page.setViewportSize({ width: 360, height: 740 });
  await openConversation(page, conversationId, 'Solo');
  await expect(history(page).getByRole('article', { name: 'Result from Writer (completed)' })).toBeVisible();
  await composer(page).pressSequentially('@Launch crew / R');
  await expect(listbox(page).getByRole('option')).toHaveText(['@Launch crew / Researcher']);
  await composer(page).press('Enter');
  await expect(page.getByRole('button', { name: 'Remove recipient Launch crew / Researcher' })).toBeVisible();
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, overflow.offenders.join(', ')).toBeLessThanOrEqual(0);
});

test("a member's own conversation offers its teammates but not itself; a click picks and the chip removes", async ({ page, api }) => {
  const team = await createTeam(api, 'Docs', [await createAgent(api, 'Editor'), await createAgent(api, 'Checker'), await createAgent(api, 'Proof')]);
  const editor = team.members.find((m) => m.name === 'Editor')!;
  await openConversation(page, editor.conversationId!, 'Editor');

  await composer(page).click();
  await composer(page).pressSequentially('Hello @');
  await expect(listbox(page).getByRole('option')).toHaveText(['@Docs / Checker', '@Docs / Proof']);
  // While an input method composes, its arrows and Enter are its own: the list does not move or pick.
  const first = await composer(page).getAttribute('aria-activedescendant');
  await composer(page).dispatchEvent('compositionstart', { data: '' });
  await composer(page).press('ArrowDown');
  await expect(composer(page)).toHaveAttribute('aria-activedescendant', first!);
  await composer(page).dispatchEvent('compositionend', { data: '' });
  await composer(page).press('ArrowDown');
  await expect(composer(page)).not.toHaveAttribute('aria-activedescendant', first!);
  await listbox(page).getByRole('option', { name: '@Docs / Proof' }).click();
  await expect(composer(page)).toHaveValue('Hello ');
  await expect(composer(page)).toBeFocused();
  // A picked member is not offered twice.
  await composer(page).pressSequentially('@');
  await expect(listbox(page).getByRole('option')).toHaveText(['@Docs / Checker']);
  await composer(page).press('Escape');

  await page.getByRole('button', { name: 'Remove recipient Docs / Proof' }).click();
  await expect(page.getByRole('button', { name: /^Remove recipient/ })).toHaveCount(0);
  // Without chips the message goes to the agent as before.
  await composer(page).fill('/reply Just for me');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(history(page).getByText('Just for me', { exact: true })).toBeVisible(RESULT);
});

test('an owner without teams is told there is no one to mention', async ({ page, api }) => {
  const solo = await createAgent(api, 'Loner');
  const conversationId = await createConversation(api, solo.id);
  await openConversation(page, conversationId, 'Loner');
  await composer(page).click();
  await composer(page).pressSequentially('@');
  await expect(page.getByRole('status').filter({ hasText: 'No team members to mention.' })).toBeVisible();
  await expect(listbox(page).getByRole('option')).toHaveCount(0);
  // Enter is still a newline when there is nothing to pick.
  await composer(page).press('Enter');
  await expect(composer(page)).toHaveValue('@\n');
});

test('a query with spaces typed before the team members loaded opens with its option once they arrive', async ({ page, api }) => {
  await createTeam(api, 'Launch crew', [await createAgent(api, 'Researcher'), await createAgent(api, 'Writer')]);
  const solo = await createAgent(api, 'Solo');
  const conversationId = await createConversation(api, solo.id);
  // Hold the targets' read until the whole query is typed: the list can't know yet that "@Launch crew / R" (with
  // spaces) is a mention, and must decide again when the labels arrive (commit d03c14b: with a stale sync the
  // list stayed closed for good).
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  await page.route(new RegExp(`/api/v1/conversations/${conversationId}/mentions$`), async (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    asked += 1;
    await held;
    await route.continue();
  });
  await openConversation(page, conversationId, 'Solo');

  const box = composer(page);
  await box.click();
  await box.pressSequentially('@Launch crew / R');
  await expect.poll(() => asked).toBe(1);
  // The space closed the list while no label was known; what was typed stays.
  await expect(listbox(page)).toHaveCount(0);
  await expect(box).toHaveValue('@Launch crew / R');

  release();
  await expect(listbox(page).getByRole('option')).toHaveText(['@Launch crew / Researcher']);
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await box.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove recipient Launch crew / Researcher' })).toBeVisible();
  await expect(box).toHaveValue('');
  expect(asked).toBe(1);
});
