import type { APIRequestContext, Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { expect, test } from './fixtures';
import { FIRST_LOAD, expectLive } from './support/team-flows';

/**
 * Find and keep: the feed filter lives in the URL (a filtered link opens filtered; each change is a URL change the
 * back button undoes), and the Manage menu downloads the team as Markdown and as JSON.
 */
const RESULT_TIMEOUT = 15_000;
type Team = { id: string; members: Array<{ id: string; name: string }> };
type Activity = { jobs: Array<{ id: string; status: string }> };

const layouts = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

/** A team of Writer and Reviewer with three finished requests: two of Writer's completed, Reviewer's failed. */
async function seedTeam(api: APIRequestContext): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Writer', 'Reviewer']) {
    const res = await api.post('/api/v1/agents', { data: { name } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const created = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Quarter 売上 🚀', goal: 'Report the quarter', agentIds } });
  expect(created.status(), await created.text()).toBe(201);
  const team = (await created.json()) as Team;
  const [writer, reviewer] = team.members;
  for (const [member, text] of [
    [writer!, '/reply Alpha report 売上 📈'],
    [reviewer!, '/fail provider down'],
    [writer!, '/reply Beta notes'],
  ] as const) {
    const res = await api.post(`/api/v1/teams/${team.id}/requests`, { data: { memberIds: [member.id], text, draftKey: crypto.randomUUID() } });
    expect(res.status(), await res.text()).toBe(201);
  }
  await expect
    .poll(
      async () => {
        const res = await api.get(`/api/v1/teams/${team.id}/activity?limit=50`);
        return ((await res.json()) as Activity).jobs.map((j) => j.status).sort();
      },
      { timeout: RESULT_TIMEOUT },
    )
    .toEqual(['completed', 'completed', 'failed']);
  return team;
}

const feed = (page: Page) => page.getByRole('region', { name: 'Activity' }).getByRole('article');
const filterBar = (page: Page) => page.getByRole('search', { name: 'Filter activity' });
const params = (page: Page) => new URL(page.url()).searchParams;

for (const layout of layouts) {
  test(`filter the feed via the URL; changes update it and back restores (${layout.name})`, async ({ page, api }) => {
    const team = await seedTeam(api);
    const [writer, reviewer] = team.members;
    await page.setViewportSize(layout.viewport);
    await page.emulateMedia({ colorScheme: layout.scheme });

    // A filtered link opens filtered, with the bar showing the filter.
    await page.goto(`/teams/${team.id}?status=failed`);
    if (layout.scheme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await expect(feed(page)).toHaveCount(1, FIRST_LOAD);
    await expect(feed(page).first()).toHaveAccessibleName(`You → @${reviewer!.name}`);
    await expect(filterBar(page).getByLabel('Status')).toHaveValue('failed');
    await expect(filterBar(page).getByRole('status')).toHaveText('1 match');
    await expectLive(page);

    // Change the filter: the URL follows.
    await filterBar(page).getByLabel('Status').selectOption({ label: 'Any status' });
    await expect.poll(() => params(page).get('status')).toBeNull();
    await expect(feed(page)).toHaveCount(3);
    await filterBar(page).getByLabel('Member').selectOption({ label: writer!.name });
    await expect.poll(() => params(page).get('member')).toBe(writer!.id);
    await expect(feed(page)).toHaveCount(2);
    await filterBar(page).getByLabel('Search activity').fill('売上');
    await expect.poll(() => params(page).get('text')).toBe('売上');
    await expect(feed(page)).toHaveCount(1);
    await expect(feed(page).first()).toContainText('Alpha report 売上 📈');

    // Nothing matches: the feed says so and offers the way back.
    await filterBar(page).getByLabel('Search activity').fill('no such words 🙈');
    await expect.poll(() => params(page).get('text')).toBe('no such words 🙈');
    await expect(page.getByText('Nothing matches these filters')).toBeVisible();

    // Back restores each earlier filter, bar and feed alike.
    await page.goBack();
    await expect.poll(() => params(page).get('text')).toBe('売上');
    await expect(filterBar(page).getByLabel('Search activity')).toHaveValue('売上');
    await expect(feed(page)).toHaveCount(1);
    await page.goBack();
    await expect.poll(() => params(page).get('text')).toBeNull();
    await expect(filterBar(page).getByLabel('Search activity')).toHaveValue('');
    await expect(feed(page)).toHaveCount(2);
    await page.goBack();
    await expect.poll(() => params(page).get('member')).toBeNull();
    await expect(feed(page)).toHaveCount(3);

    await filterBar(page).getByLabel('Status').selectOption({ label: 'Completed' });
    await expect(feed(page)).toHaveCount(2);
    await filterBar(page).getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`/teams/${team.id}$`));
    await expect(feed(page)).toHaveCount(3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  });

  test(`a filtered feed stays live: a new matching request appears, one that stops matching leaves (${layout.name})`, async ({ page, api }) => {
    const team = await seedTeam(api);
    const [writer] = team.members;
    await page.setViewportSize(layout.viewport);
    await page.emulateMedia({ colorScheme: layout.scheme });
    await page.goto(`/teams/${team.id}?status=in_progress`);
    await expect(page.getByText('Nothing matches these filters')).toBeVisible(FIRST_LOAD);
    await expectLive(page);

    // A slow request shows while in progress and drops out of the filter when it completes.
    const res = await api.post(`/api/v1/teams/${team.id}/requests`, {
      data: { memberIds: [writer!.id], text: '/sleep 4000\n/reply Slow one', draftKey: crypto.randomUUID() },
    });
    expect(res.status(), await res.text()).toBe(201);
    await expect(feed(page)).toHaveCount(1, { timeout: RESULT_TIMEOUT });
    await expect(page.getByText('Nothing matches these filters')).toBeVisible({ timeout: RESULT_TIMEOUT });
  });
}

for (const layout of layouts) {
  test(`export downloads the team as Markdown and as JSON (${layout.name})`, async ({ page, api }) => {
    const team = await seedTeam(api);
    await page.setViewportSize(layout.viewport);
    await page.emulateMedia({ colorScheme: layout.scheme });
    await page.goto(`/teams/${team.id}`);
    await expect(feed(page)).toHaveCount(3, FIRST_LOAD);
    await expectLive(page);

    const exportAs = async (label: string) => {
      await page.getByRole('button', { name: 'Manage' }).click();
      const downloading = page.waitForEvent('download');
      await page.getByRole('menuitem', { name: label }).click();
      const download = await downloading;
      return { name: download.suggestedFilename(), text: await fs.readFile((await download.path())!, 'utf8') };
    };

    const md = await exportAs('Export as Markdown');
    expect(md.name).toBe('Quarter 売上 🚀 team.md');
    expect(md.text).toMatch(/^# Quarter 売上 🚀\n/);
    expect(md.text).toContain('Alpha report 売上 📈');
    expect(md.text).toContain('· Failed');
    expect(md.text).toContain('provider down');

    const json = await exportAs('Export as JSON');
    expect(json.name).toBe('Quarter 売上 🚀 team.json');
    const doc = JSON.parse(json.text) as { team: { id: string }; jobs: Array<{ id: string; status: string; result: string | null }> };
    expect(doc.team.id).toBe(team.id);
    expect(doc.jobs.map((j) => j.status)).toEqual(['completed', 'failed', 'completed']);
    expect(doc.jobs[0]!.result).toBe('Alpha report 売上 📈');
    // The page is still the workspace: a download, not a navigation.
    expect(new URL(page.url()).pathname).toBe(`/teams/${team.id}`);
  });
}

test('the workspace files can be kept: Manage offers the ZIP export, and deleting the team says its files go', async ({ page, api }) => {
  const team = await seedTeam(api);
  const upload = await api.post(`/api/v1/teams/${team.id}/files?name=${encodeURIComponent('plan 計画 🗂.md')}`, {
    data: Buffer.from('# Plan 計画 🗂\n'),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  await page.goto(`/teams/${team.id}`);
  await expect(feed(page)).toHaveCount(3, FIRST_LOAD);
  await expectLive(page);

  await page.getByRole('button', { name: 'Manage' }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Export as ZIP, with files' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('Quarter 売上 🚀 team.zip');
  const entries = unzipSync(new Uint8Array(await fs.readFile((await download.path())!)));
  expect(Object.keys(entries).sort()).toEqual(['files/plan 計画 🗂.md', 'team.json', 'team.md']);
  expect(strFromU8(entries['files/plan 計画 🗂.md']!)).toBe('# Plan 計画 🗂\n');
  expect(new URL(page.url()).pathname).toBe(`/teams/${team.id}`);

  await page.getByRole('button', { name: 'Manage' }).click();
  await page.getByRole('menuitem', { name: 'Delete team…' }).click();
  await expect(page.getByRole('dialog')).toContainText('the files of its workspace are removed (Manage → Export as ZIP keeps a copy of them all)');
  await page.getByRole('button', { name: 'Keep team' }).click();
  expect((await api.get(`/api/v1/teams/${team.id}/files`)).status()).toBe(200);
});
