import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { FIRST_LOAD, expectLive } from './support/team-flows';

// Agent runs go through the real scheduler with the embedded `scripted` model on a busy two-core machine.
test.describe.configure({ timeout: 60_000 });
const RESULT_TIMEOUT = 15_000;

type Team = { id: string; members: Array<{ id: string; name: string }> };
type Job = { id: string; status: string; retryOf?: string | null; memberId: string | null };

async function makeTeam(api: APIRequestContext): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Researcher', 'Writer']) {
    const res = await api.post('/api/v1/agents', { data: { name, description: 'Helps' } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Steer crew', goal: 'Ship', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

async function send(api: APIRequestContext, team: Team, memberId: string, text: string): Promise<string> {
  const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [memberId], text, draftKey: crypto.randomUUID() } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { jobs: Job[] }).jobs[0]!.id;
}

const jobs = async (api: APIRequestContext, teamId: string) =>
  ((await (await api.get(`/api/v1/teams/${teamId}/activity?limit=50`)).json()) as { jobs: Job[] }).jobs;
const statusOf = async (api: APIRequestContext, teamId: string, jobId: string) => (await jobs(api, teamId)).find((j) => j.id === jobId)?.status;

/**
 * An open question: it holds the member's later requests queued until answered. Not a sleep: on a slow machine a
 * sleep can end, and the queued request run, before the test reaches that request's Cancel.
 */
const HOLD = '/ask Hold on?';

/** The feed card whose request text is exactly this (several cards share a "You → @Member" headline). */
const cardWith = (page: Page, text: string): Locator =>
  page.getByRole('article').filter({ has: page.getByText(text, { exact: true }) });

const layouts = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

async function open(page: Page, team: Team, layout: (typeof layouts)[number]) {
  await page.setViewportSize(layout.viewport);
  await page.emulateMedia({ colorScheme: layout.scheme });
  await page.goto(`/teams/${team.id}`);
  if (layout.scheme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  await expect(page.getByRole('heading', { name: 'Activity' })).toBeVisible(FIRST_LOAD);
  await expectLive(page);
}

/** Serious or critical axe violations (contrast included) in the feed, one line each. */
async function feedViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include('section[aria-labelledby="activity-heading"]').analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
}

/** Nothing sticks out sideways on a phone. */
const noSidewaysScroll = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);

for (const layout of layouts) {
  test(`read why a job waits, and see it change live (${layout.name})`, async ({ page, api }) => {
    const team = await makeTeam(api);
    const [researcher] = team.members;
    const asking = await send(api, team, researcher!.id, '/ask Which colour?');
    await expect.poll(() => statusOf(api, team.id, asking), { timeout: RESULT_TIMEOUT }).toBe('waiting_input');
    await send(api, team, researcher!.id, '/reply second is done');
    await open(page, team, layout);

    const second = cardWith(page, '/reply second is done');
    await expect(second).toContainText('Waiting for your answer to an earlier request to this member');
    // The wait line is readable in both themes (contrast) and the card stays accessible.
    expect(await feedViolations(page)).toEqual([]);
    // The line leads to the question it waits on.
    await second.getByRole('link', { name: 'answer it' }).click();
    await expect(cardWith(page, '/ask Which colour?')).toBeFocused();
    // Answering the question lets the member go on: the waiting card's reason goes away and its result arrives.
    const question = cardWith(page, '/ask Which colour?');
    await question.getByRole('textbox').fill('Blue');
    // On a phone the answer is tapped off; at a desk Ctrl/⌘+Enter sends it, as in the composers.
    if (layout.viewport.width < 640) await question.getByRole('button', { name: 'Send answer' }).click();
    else await question.getByRole('textbox').press('ControlOrMeta+Enter');
    await expect(second).toContainText('Completed', { timeout: RESULT_TIMEOUT });
    await expect(second).not.toContainText('Waiting for');

    // Behind an earlier request to the same member: a slow one runs, the next one says why it waits.
    await send(api, team, researcher!.id, '/sleep 4000\n/reply slow one');
    await send(api, team, researcher!.id, '/reply after the slow one');
    await expect(cardWith(page, '/reply after the slow one')).toContainText('Behind an earlier request to this member', { timeout: RESULT_TIMEOUT });
    await expect(cardWith(page, '/reply after the slow one')).toContainText('Completed', { timeout: RESULT_TIMEOUT });
    await expect(cardWith(page, '/reply after the slow one')).not.toContainText('Behind an earlier request');
    if (layout.viewport.width < 400) await noSidewaysScroll(page);
  });

  test(`retry a failed request, and send a cancelled one to another member (${layout.name})`, async ({ page, api }) => {
    const team = await makeTeam(api);
    const [researcher, writer] = team.members;
    const failed = await send(api, team, researcher!.id, '/fail provider down');
    await expect.poll(() => statusOf(api, team.id, failed), { timeout: RESULT_TIMEOUT }).toBe('failed');
    await send(api, team, researcher!.id, HOLD);
    const behind = await send(api, team, researcher!.id, '/reply handled elsewhere');
    await open(page, team, layout);

    // Retry: a new request with the same text appears, linked back to the one that failed.
    const failedCard = cardWith(page, '/fail provider down').filter({ hasText: 'Failed' }).first();
    await failedCard.getByRole('button', { name: 'Retry' }).click();
    const retryCard = page.getByRole('article').filter({ hasText: 'Retry of:' }).filter({ hasText: '/fail provider down' });
    await expect(retryCard).toHaveCount(1);
    await expect.poll(async () => (await jobs(api, team.id)).filter((j) => j.retryOf === failed).length).toBe(1);

    // Cancel the queued one, then send it to the Writer instead: it runs there and its result shows.
    const queued = cardWith(page, '/reply handled elsewhere');
    await queued.getByRole('button', { name: 'Task details' }).click();
    await queued.getByRole('button', { name: 'Cancel' }).click();
    await expect(queued.getByRole('button', { name: /^Send to/ })).toBeVisible();
    expect(await feedViolations(page)).toEqual([]);
    await queued.getByRole('button', { name: /^Send to/ }).click();
    await page.getByRole('menuitem', { name: `@${writer!.name}` }).click();
    const sent = page.getByRole('article', { name: `You → @${writer!.name}` });
    await expect(sent).toContainText('Retry of:');
    await expect(sent).toContainText('Completed', { timeout: RESULT_TIMEOUT });
    const all = await jobs(api, team.id);
    expect(all.find((j) => j.retryOf === behind)).toMatchObject({ memberId: writer!.id });
    if (layout.viewport.width < 400) await noSidewaysScroll(page);
  });

  test(`cancel all unfinished requests in one step, after confirming (${layout.name})`, async ({ page, api }) => {
    const team = await makeTeam(api);
    const [researcher, writer] = team.members;
    const ids = [
      await send(api, team, researcher!.id, '/sleep 20000\n/reply never'),
      await send(api, team, researcher!.id, '/reply queued one'),
      await send(api, team, writer!.id, '/sleep 20000\n/reply never either'),
    ];
    await open(page, team, layout);
    await expect.poll(() => statusOf(api, team.id, ids[0]!), { timeout: RESULT_TIMEOUT }).toBe('running');

    await page.getByRole('button', { name: 'Manage' }).click();
    await page.getByRole('menuitem', { name: 'Cancel all unfinished requests…' }).click();
    const dialog = page.getByRole('dialog', { name: /Cancel all unfinished requests/ });
    await expect(dialog).toContainText('3 unfinished requests will be cancelled');
    // Keeping them changes nothing.
    await dialog.getByRole('button', { name: 'Keep them' }).click();
    await expect(dialog).toBeHidden();
    expect(await statusOf(api, team.id, ids[1]!)).toBe('queued');

    await page.getByRole('button', { name: 'Manage' }).click();
    await page.getByRole('menuitem', { name: 'Cancel all unfinished requests…' }).click();
    await dialog.getByRole('button', { name: 'Cancel all' }).click();
    await expect(dialog).toBeHidden();
    for (const id of ids) await expect.poll(() => statusOf(api, team.id, id), { timeout: RESULT_TIMEOUT }).toBe('cancelled');
    await expect(page.getByRole('article').filter({ hasText: 'Cancelled' })).toHaveCount(3, { timeout: RESULT_TIMEOUT });
    // Nothing is left to cancel: the menu no longer offers it.
    await page.getByRole('button', { name: 'Manage' }).click();
    await expect(page.getByRole('menuitem', { name: 'Delete team…' })).toBeVisible();
    await expect(page.getByRole('menuitem', { name: 'Cancel all unfinished requests…' })).toHaveCount(0);
    if (layout.viewport.width < 400) await noSidewaysScroll(page);
  });
}

test('live updates leave a queued card’s open details and its Cancel button in place while other requests finish', async ({ page, api }) => {
  const team = await makeTeam(api);
  const [researcher, writer] = team.members;
  await send(api, team, researcher!.id, HOLD);
  const held = await send(api, team, researcher!.id, '/reply held back');
  await open(page, team, layouts[0]!);
  const queued = cardWith(page, '/reply held back');
  await queued.getByRole('button', { name: 'Task details' }).click();
  const cancel = queued.getByRole('button', { name: 'Cancel' });
  await expect(cancel).toBeVisible();
  const nodes = { card: await queued.elementHandle(), cancel: await cancel.elementHandle() };

  // Four other requests are queued, run and finish: each a push the feed applies while the person reads the card.
  for (let i = 1; i <= 4; i++) await send(api, team, writer!.id, `/reply other ${i}`);
  await expect(page.getByRole('article').filter({ hasText: 'Completed' })).toHaveCount(4, { timeout: RESULT_TIMEOUT });
  // What must not happen: the card or its button re-created by an update (a person's click would land on nothing).
  expect(await nodes.card!.evaluate((el) => el.isConnected)).toBe(true);
  expect(await nodes.cancel!.evaluate((el) => el.isConnected)).toBe(true);
  await expect(queued.getByRole('button', { name: 'Cancel' })).toBeVisible();

  await cancel.click();
  await expect.poll(() => statusOf(api, team.id, held), { timeout: RESULT_TIMEOUT }).toBe('cancelled');
  await expect(queued).toContainText('Cancelled');
});
