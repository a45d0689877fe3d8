import type { APIRequestContext, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, card, composer, createTeam, openTeam, sendRequest, type Team } from './support/team-flows';

// Agent runs go through the real scheduler with the embedded `scripted` model on a busy two-core machine.
test.describe.configure({ timeout: 60_000 });

const crew = (api: APIRequestContext, name: string) =>
  createTeam(api, name, [
    { name: 'Writer', description: 'Drafts text' },
    { name: 'Reviewer', description: 'Checks drafts' },
  ]);

const editDialog = (page: Page) => page.getByRole('dialog', { name: 'Edit team' });

test('rename the team and edit its goal: counters, refusal past the limit with the text kept, the header and tab follow', async ({ page, api }) => {
  const team = await crew(api, 'Launch crew');
  await openTeam(page, team.id);
  await expect(page).toHaveTitle('Launch crew · Ensemble');

  await page.getByRole('button', { name: 'Edit team name and goal' }).click();
  const dialog = editDialog(page);
  const name = dialog.getByLabel('Name');
  await expect(name).toHaveValue('Launch crew');
  await expect(dialog.getByLabel('Goal')).toHaveValue('Prepare the cost review');
  // One past the name's byte bound (54 CJK characters are 162 bytes): refused in the browser, text kept.
  const tooLong = '研'.repeat(54);
  await name.fill(tooLong);
  await expect(dialog.getByText('54 / 80 characters · 162 / 160 bytes')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText(/Name is too long/)).toBeVisible();
  await expect(name).toHaveValue(tooLong);
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  // What must not happen: the refused name reaching the server.
  expect(((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as Team).name).toBe('Launch crew');

  // A name another of the person's teams has: the server refuses it, naming that team as written, and the focus goes to
  // the field that says why.
  const { agents } = (await (await api.get('/api/v1/agents')).json()) as { agents: Array<{ id: string }> };
  const other = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Taken crew', goal: 'Other work', agentIds: agents.map((a) => a.id) } });
  expect(other.status(), await other.text()).toBe(201);
  await name.fill('TAKEN crew');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('You already have a team named "Taken crew"', { exact: false })).toBeVisible();
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute('aria-invalid', 'true');

  await name.fill('Release 研🚀');
  await dialog.getByLabel('Goal').fill('Ship 2.0 by Friday');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Release 研🚀' })).toBeVisible();
  await expect(page.getByText('Ship 2.0 by Friday')).toBeVisible();
  await expect(page).toHaveTitle('Release 研🚀 · Ensemble');

  // Kept on the server: a reload shows the new name and goal, and new requests are sent to the renamed team.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Release 研🚀' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByText('Ship 2.0 by Friday')).toBeVisible();
  const saved = (await (await api.get(`/api/v1/teams/${team.id}`)).json()) as Team & { goal: string };
  expect(saved).toMatchObject({ name: 'Release 研🚀', goal: 'Ship 2.0 by Friday' });
});

test('edit the goal on a 390 px phone in dark mode: the dialog fits and the new goal shows', async ({ page, api }) => {
  const team = await crew(api, 'Phone crew');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 844 });
  await openTeam(page, team.id);
  await page.getByRole('button', { name: 'Edit team name and goal' }).click();
  const dialog = editDialog(page);
  await dialog.getByLabel('Goal').fill('🚀'.repeat(1_000));
  await expect(dialog.getByText('1,000 / 2,000 characters · 4,000 / 4,000 bytes')).toBeVisible();
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, overflow.offenders.join('\n')).toBeLessThanOrEqual(0);
  await dialog.getByLabel('Goal').fill('Answer on the phone');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Answer on the phone')).toBeVisible();
  // Dark mode is on (the page background is dark), and nothing sticks out sideways after the save either.
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).not.toBe('rgb(255, 255, 255)');
  expect((await measureHorizontalOverflow(page)).px).toBeLessThanOrEqual(0);
});

test('a team at its 100-request limit says so and offers a clone with the same members and goal', async ({ page, api }) => {
  const team = await crew(api, 'Full crew');
  const memberIds = team.members.map((m) => m.id);
  for (let i = 0; i < 50; i++) {
    const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds, text: `/reply r${i}`, draftKey: crypto.randomUUID() } });
    expect(res.status(), await res.text()).toBe(201);
  }
  // Stop the seeded work from keeping the machine's two cores busy; cancelled requests still count toward the limit.
  expect((await api.post(`/api/v1/teams/${team.id}/cancel-all`, { data: {} })).status()).toBe(200);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await openTeam(page, team.id);
  const notice = page.getByRole('status', { name: 'Request limit' });
  await expect(notice).toContainText('This team reached its limit of 100 requests');

  // Sending anyway is refused, with the reason, and the text stays.
  const box = composer(page);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await box.fill('One more, please');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'limit reached' })).toBeVisible();
  await expect(box).toHaveValue('One more, please');
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, overflow.offenders.join('\n')).toBeLessThanOrEqual(0);

  await notice.getByRole('button', { name: 'Clone team' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clone team' });
  await expect(dialog).toContainText('same 2 members and goal');
  await expect(dialog.getByLabel('Name of the new team')).toHaveValue('Full crew (2)');
  await dialog.getByRole('button', { name: 'Clone team' }).click();

  await expect(page).not.toHaveURL(new RegExp(`/teams/${team.id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Full crew (2)' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByText('Prepare the cost review')).toBeVisible();
  const members = page.getByRole('complementary', { name: 'Members' });
  await expect(members.getByRole('button', { name: 'Mention Writer' })).toBeVisible();
  await expect(members.getByRole('button', { name: 'Mention Reviewer' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Request limit' })).toHaveCount(0);

  // The clone takes requests again, and its first one is answered.
  const cloneId = /\/teams\/([^/?#]+)$/.exec(page.url())![1]!;
  const clone = (await (await api.get(`/api/v1/teams/${cloneId}`)).json()) as Team & { requestCount: number };
  expect(clone.requestCount).toBe(0);
  await sendRequest(api, clone, 'Writer', '/reply Fresh start');
  await expect(card(page, 'You → @Writer').getByText('Fresh start', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  // The full team is left as it was.
  expect(((await (await api.get(`/api/v1/teams/${team.id}`)).json()) as { requestCount: number }).requestCount).toBe(100);
});

test('any team can be cloned from the Manage menu, not only one at its request limit', async ({ page, api }) => {
  const team = await crew(api, 'Weekly crew');
  await openTeam(page, team.id);
  await expect(page.getByRole('status', { name: 'Request limit' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Manage' }).click();
  await page.getByRole('menuitem', { name: 'Clone team…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clone team' });
  await expect(dialog.getByLabel('Name of the new team')).toHaveValue('Weekly crew (2)');
  await dialog.getByRole('button', { name: 'Clone team' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Weekly crew (2)' })).toBeVisible(FIRST_LOAD);
  const members = page.getByRole('complementary', { name: 'Members' });
  await expect(members.getByRole('button', { name: 'Mention Writer' })).toBeVisible();
  // The original is left as it was.
  expect((await api.get(`/api/v1/teams/${team.id}`)).status()).toBe(200);
});

test('the tab title counts the jobs waiting for the person’s answer', async ({ page, api }) => {
  const team = await crew(api, 'Waiting crew');
  await openTeam(page, team.id);
  await expect(page).toHaveTitle('Waiting crew · Ensemble');
  await sendRequest(api, team, 'Writer', '/ask Which tone should I use?');
  await sendRequest(api, team, 'Reviewer', '/ask Which draft?');
  await expect(page).toHaveTitle('(2) Waiting crew · Ensemble', { timeout: RESULT_TIMEOUT });

  const asking = card(page, 'You → @Writer');
  await asking.getByRole('textbox', { name: 'Your answer' }).fill('Friendly');
  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect(page).toHaveTitle('(1) Waiting crew · Ensemble', { timeout: RESULT_TIMEOUT });
  await expect(asking.getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
});

/**
 * Stands in for the browser's notification API: `Notification.permission` reads "default" until the page asks
 * (counting each ask), then the context's real grant; a notification is recorded, not shown; the test decides
 * whether the tab counts as hidden. The grant is what the real `requestPermission()` answers: Chromium's headless
 * shell reads `Notification.permission` as "denied" whatever the context granted, though it answers the ask with
 * the grant.
 */
function fakeNotifications() {
  type Probe = { asked: number; shown: Array<{ title: string; body: string }>; hidden: boolean };
  const probe: Probe = { asked: 0, shown: [], hidden: false };
  (window as unknown as { __notify: Probe }).__notify = probe;
  const Real = window.Notification;
  // The grant outlives a reload, as a browser's does.
  let granted = sessionStorage.getItem('fake-notify-granted') as NotificationPermission | null;
  const Fake = function (title: string, options?: NotificationOptions) {
    probe.shown.push({ title, body: options?.body ?? '' });
    return { onclick: null, close() {} };
  } as unknown as typeof Notification;
  Object.defineProperty(Fake, 'permission', { get: () => granted ?? 'default' });
  Fake.requestPermission = async () => {
    probe.asked++;
    granted = await Real.requestPermission();
    sessionStorage.setItem('fake-notify-granted', granted);
    return granted;
  };
  (window as unknown as { Notification: typeof Notification }).Notification = Fake;
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (probe.hidden ? 'hidden' : 'visible') });
}

type Probe = { asked: number; shown: Array<{ title: string; body: string }> };
const probe = (page: Page) => page.evaluate(() => (window as unknown as { __notify: Probe }).__notify);
const setHidden = (page: Page, hidden: boolean) => page.evaluate((h) => void ((window as unknown as { __notify: { hidden: boolean } }).__notify.hidden = h), hidden);

test('notifications are asked for on a click, never on load, and arrive only while the tab is hidden', async ({ page, context, api }) => {
  await context.grantPermissions(['notifications']);
  await page.addInitScript(fakeNotifications);
  const team = await crew(api, 'Notify crew');
  await openTeam(page, team.id);
  const toggle = page.getByRole('button', { name: 'Notify me' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  // What must not happen: a permission prompt on load.
  expect((await probe(page)).asked).toBe(0);

  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  expect((await probe(page)).asked).toBe(1);

  // Visible tab: work that finishes shows in the feed, with no notification.
  await sendRequest(api, team, 'Reviewer', '/reply seen here');
  await expect(card(page, 'You → @Reviewer').getByText('Completed', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  expect((await probe(page)).shown).toEqual([]);

  // Hidden tab: a question and a finished request each notify, once.
  await setHidden(page, true);
  await sendRequest(api, team, 'Writer', '/ask Which tone should I use?');
  await expect.poll(async () => (await probe(page)).shown, { timeout: RESULT_TIMEOUT }).toEqual([{ title: 'Notify crew', body: 'Writer needs your answer' }]);
  await sendRequest(api, team, 'Reviewer', '/reply done while away');
  await expect
    .poll(async () => (await probe(page)).shown.map((n) => n.body), { timeout: RESULT_TIMEOUT })
    .toEqual(['Writer needs your answer', 'Reviewer finished a request']);

  // The choice is kept: after a reload the switch is still on, and nothing asked again.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Notify me' })).toHaveAttribute('aria-pressed', 'true', FIRST_LOAD);
  expect((await probe(page)).asked).toBe(0);
  // Turned off, a hidden tab gets nothing.
  await page.getByRole('button', { name: 'Notify me' }).click();
  await expect(page.getByRole('button', { name: 'Notify me' })).toHaveAttribute('aria-pressed', 'false');
  await setHidden(page, true);
  await sendRequest(api, team, 'Reviewer', '/reply off now');
  await expect(page.getByText('off now', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  expect((await probe(page)).shown).toEqual([]);
});
