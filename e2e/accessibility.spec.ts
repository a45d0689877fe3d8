/**
 * Accessibility of every page, in light and in dark: axe-core (the engine browsers' own audits use) finds no serious
 * or critical violation, and text contrast is at least 4.5:1 (axe's color-contrast rule, WCAG AA, is serious).
 * Plus the two behaviours axe can't judge: the confirm dialog's keyboard contract, and the team members row on a
 * 390 px phone.
 */
import AxeBuilder from '@axe-core/playwright';
import crypto from 'node:crypto';
import type { APIRequestContext, Browser, Locator, Page } from '@playwright/test';
import { expect, test, type Account } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, createAgent, createTeam, expectLive, sendRequest, type Team } from './support/team-flows';

// Thirteen page loads with an axe run each, after a team handoff through the real scheduler, on a busy machine.
test.describe.configure({ timeout: 150_000 });

const DARK = /(^|\s)dark(\s|$)/;
type Scheme = 'light' | 'dark';

/** One line per violation: what, how bad, and where (the first few nodes), so a failure says what to fix. */
async function violations(page: Page, label: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => {
      const where = v.nodes
        .slice(0, 4)
        .map((n) => `${n.target.join(' ')} ${n.any[0]?.message ?? ''}`.trim())
        .join(' | ');
      return `${label}: ${v.id} (${v.impact}) ${v.help} — ${where}`;
    });
}

/** Open a page in the scheme, wait until it shows its data (`ready`), and collect its violations. */
async function audit(page: Page, scheme: Scheme, path: string, ready: (page: Page) => Locator): Promise<string[]> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(path, FIRST_LOAD);
  await expect(ready(page)).toBeVisible(FIRST_LOAD);
  // next-themes follows the system scheme: the class on <html> is what the Tailwind dark: classes key on.
  if (scheme === 'dark') await expect(page.locator('html')).toHaveClass(DARK);
  else await expect(page.locator('html')).not.toHaveClass(DARK);
  return violations(page, `${path} (${scheme})`);
}

const h1 = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { level: 1, name });

/** Research hands a review to Review (scripted by the owner's instructions); all three jobs finish. */
async function teamWithJobs(api: APIRequestContext): Promise<Team> {
  const team = await createTeam(api, 'Audit crew', [{ name: 'Research' }, { name: 'Review', instructions: '/reply Looks good' }]);
  await sendRequest(api, team, 'Research', `/call send_member ${JSON.stringify({ member: 'Review', text: 'Please review', request_id: 'r1' })}`);
  await expect
    .poll(
      async () => {
        const body = (await (await api.get(`/api/v1/teams/${team.id}/activity?limit=20`)).json()) as { jobs: Array<{ status: string }> };
        return body.jobs.length === 3 && body.jobs.every((j) => j.status === 'completed');
      },
      { timeout: RESULT_TIMEOUT * 2 },
    )
    .toBe(true);
  return team;
}

/** A conversation with one exchange in it. */
async function conversationWithReply(api: APIRequestContext, agentId: string): Promise<string> {
  const created = await api.post('/api/v1/conversations', { data: { agentId } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text: '/reply Hello back', idempotencyKey: crypto.randomUUID() } });
  expect(sent.status(), await sent.text()).toBeLessThan(300);
  return id;
}

async function signedOutPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  return context.newPage();
}

async function signedInPage(browser: Browser, account: Account): Promise<Page> {
  const context = await browser.newContext({ storageState: account.storageState });
  return context.newPage();
}

for (const scheme of ['light', 'dark'] as const) {
  test(`signed-out pages in ${scheme}: no serious or critical axe violation`, async ({ browser }) => {
    const page = await signedOutPage(browser);
    const found = [
      ...(await audit(page, scheme, '/sign-in', h1('Sign in'))),
      ...(await audit(page, scheme, '/sign-up', h1('Create account'))),
    ];
    await page.context().close();
    expect(found).toEqual([]);
  });

  test(`agents, conversations, settings and admin in ${scheme}: no serious or critical axe violation`, async ({ browser, page, api, accounts }) => {
    const agent = await createAgent(api, { name: 'Audit helper', description: 'Answers for the audit' });
    await createAgent(api, { name: 'Bare helper' }); // no description: its placeholder line is audited too
    const conversationId = await conversationWithReply(api, agent.id);
    const found = await audit(page, scheme, '/agents', (p) => p.getByText('No description'));
    // The confirm dialog, open over the list.
    await page.getByRole('button', { name: 'Delete Audit helper' }).click();
    await expect(page.getByRole('dialog', { name: 'Delete agent?' })).toBeVisible();
    found.push(...(await violations(page, `/agents with the delete dialog open (${scheme})`)));
    await page.keyboard.press('Escape');
    found.push(
      ...(await audit(page, scheme, '/agents/new', h1('New agent'))),
      ...(await audit(page, scheme, `/agents/${agent.id}/edit`, (p) => p.getByLabel('Name'))),
      ...(await audit(page, scheme, '/conversations', (p) => p.getByRole('link', { name: /Audit helper/ }).first())),
      ...(await audit(page, scheme, `/conversations/${conversationId}`, (p) => p.getByText('Hello back', { exact: true }))),
      ...(await audit(page, scheme, '/settings', h1('Settings'))),
    );
    const admin = await accounts.create('audit-admin', { admin: true });
    const adminPage = await signedInPage(browser, admin);
    found.push(...(await audit(adminPage, scheme, '/admin', h1('Admin'))));
    await adminPage.context().close();
    expect(found).toEqual([]);
  });

  test(`teams, a team workspace with jobs and its runs timeline in ${scheme}: no serious or critical axe violation`, async ({ page, api }) => {
    const team = await teamWithJobs(api);
    const found = [
      ...(await audit(page, scheme, '/teams', (p) => p.getByRole('link', { name: 'Audit crew' }))),
      ...(await audit(page, scheme, '/teams/new', h1(/New team/))),
      ...(await audit(page, scheme, `/teams/${team.id}`, (p) => p.getByText('Looks good').first())),
    ];
    await page.getByRole('button', { name: 'Manage' }).click();
    await expect(page.getByRole('menu')).toBeVisible();
    found.push(...(await violations(page, `/teams/${team.id} with the Manage menu open (${scheme})`)));
    found.push(...(await audit(page, scheme, `/teams/${team.id}/runs`, (p) => p.getByRole('list', { name: 'Lanes' }))));
    // The same data as tables (runs, tokens by job, by member, handoffs).
    await page.getByRole('button', { name: 'Table' }).click();
    await expect(page.getByRole('table', { name: /^Tokens by job/ })).toBeVisible();
    found.push(...(await violations(page, `/teams/${team.id}/runs as tables (${scheme})`)));
    expect(found).toEqual([]);
  });
}

test('the confirm dialog: Escape cancels without deleting, and focus goes back to the button that opened it', async ({ page, api }) => {
  await createAgent(api, { name: 'Keep me' });
  await page.goto('/agents', FIRST_LOAD);
  const opener = page.getByRole('button', { name: 'Delete Keep me' });
  await opener.click(FIRST_LOAD);
  const dialog = page.getByRole('dialog', { name: 'Delete agent?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('“Keep me” will be deleted.');
  // Cancel has focus first, so Enter can't delete by accident; Tab stays inside the dialog.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Delete agent' })).toBeFocused();

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  // What must not happen: Escape deleting the agent.
  const { agents } = (await (await api.get('/api/v1/agents')).json()) as { agents: Array<{ name: string }> };
  expect(agents.map((a) => a.name)).toEqual(['Keep me']);

  // Reopened, the Cancel button closes it the same way; confirming deletes.
  await opener.click();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  await opener.click();
  await dialog.getByRole('button', { name: 'Delete agent' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Keep me' })).toHaveCount(0);
});

test('the team members row on a 390 px phone shows every card whole, status included, with nothing sideways', async ({ page, api }) => {
  const team = await createTeam(api, 'Phone crew', [
    { name: 'Research and long-form synthesis' },
    { name: 'Review' },
    { name: 'Budget' },
  ]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/teams/${team.id}`, FIRST_LOAD);
  const members = page.getByRole('complementary', { name: 'Members' });
  const cards = members.getByRole('listitem');
  await expect(cards).toHaveCount(3, FIRST_LOAD);

  const viewport = page.viewportSize()!;
  for (const card of await cards.all()) {
    await card.scrollIntoViewIfNeeded();
    const box = (await card.boundingBox())!;
    // Whole card inside the screen's width: nothing cut at the right edge.
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    // Its status is visible inside the card (not clipped by an overflow container).
    const status = card.getByText(/^(Needs input|Running|Queued|Ready)$/).first();
    await expect(status).toBeInViewport();
    const statusBox = (await status.boundingBox())!;
    expect(statusBox.x + statusBox.width).toBeLessThanOrEqual(box.x + box.width);
  }
  // The long name wraps inside its card instead of running past it.
  const longName = members.getByText('Research and long-form synthesis', { exact: true });
  const nameBox = (await longName.boundingBox())!;
  const firstBox = (await cards.first().boundingBox())!;
  expect(nameBox.x + nameBox.width).toBeLessThanOrEqual(firstBox.x + firstBox.width);
  // And the row itself does not scroll sideways.
  const scrolls = await members.getByRole('list').evaluate((el) => el.scrollWidth > el.clientWidth);
  expect(scrolls).toBe(false);
});

test('the Manage menu works from the keyboard: arrows move, Escape closes and returns focus, a choice opens its confirm', async ({ page, api }) => {
  const team = await createTeam(api, 'Menu crew', [{ name: 'Research' }, { name: 'Review' }]);
  await page.goto(`/teams/${team.id}`, FIRST_LOAD);
  await expectLive(page);
  const manage = page.getByRole('button', { name: 'Manage' });
  await manage.focus(FIRST_LOAD);
  await page.keyboard.press('Enter');
  await expect(manage).toHaveAttribute('aria-expanded', 'true');
  const menu = page.getByRole('menu');
  await expect(menu.getByRole('menuitem', { name: 'Refresh now' })).toBeFocused();
  await page.keyboard.press('ArrowUp'); // wraps to the last item
  await expect(menu.getByRole('menuitem', { name: 'Delete team…' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(manage).toBeFocused();
  await expect(manage).toHaveAttribute('aria-expanded', 'false');

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Delete “Menu crew”?' });
  await expect(dialog.getByRole('button', { name: 'Keep team' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // What must not happen: the team deleted by a cancelled confirm.
  expect((await api.get(`/api/v1/teams/${team.id}`)).status()).toBe(200);
});
