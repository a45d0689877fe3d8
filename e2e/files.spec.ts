import AxeBuilder from '@axe-core/playwright';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { rootScrollsSideways } from './support/seed';
import { FIRST_LOAD, RESULT_TIMEOUT, createTeam, expectLive, type Team } from './support/team-flows';

/**
 * Files (issue 29) as a person meets them: a document uploaded into a team's workspace from the Files panel and
 * another attached to a request from the composer; a member reads it and writes an artifact in two versions (the
 * scripted model's `/call read_file` and `/call write_file`), which appears by push; the person previews it, compares
 * its versions, downloads it and deletes it. Also on a 390 px phone in dark mode. What must not happen: a file past
 * the limit listed, another account opening a file's URL, a version diff told by colour alone.
 */
const layouts = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

const BRIEF = 'brief 東京 😀.md';
const BRIEF_TEXT = '# Brief\n\nCompare the two offers 東京 😀.\n';
const SUMMARY_V1 = '# Summary\n\nFirst draft.\n';
const SUMMARY_V2 = '# Summary\n\nSecond draft 東京 😀.\n\n- keep the cheaper offer\n';

/** Serious or critical axe violations inside one part of the page (contrast included), one line each. */
async function violations(page: Page, within: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(within).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
}

/** Pick files with the system picker the button opens, as a person would. */
async function pickFiles(page: Page, button: Locator, files: Array<{ name: string; mimeType: string; buffer: Buffer }>) {
  const chooser = page.waitForEvent('filechooser');
  await button.click();
  await (await chooser).setFiles(files);
}

async function openTeam(page: Page, team: Team, layout: (typeof layouts)[number]) {
  await page.setViewportSize(layout.viewport);
  await page.emulateMedia({ colorScheme: layout.scheme });
  await page.goto(`/teams/${team.id}`);
  if (layout.scheme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  const panel = page.getByRole('region', { name: 'Files' });
  await expect(panel.getByText('No files yet. Upload one, or drop it here.')).toBeVisible(FIRST_LOAD);
  await expectLive(page);
  return panel;
}

for (const layout of layouts) {
  test(`upload, a member reads and writes, preview, diff, download and delete (${layout.name})`, async ({ page, api }) => {
    const team = await createTeam(api, 'Offer review', [{ name: 'Writer' }, { name: 'Reader' }]);
    const panel = await openTeam(page, team, layout);

    // Upload from the panel: it is listed as the person's, version 1, with its size in words.
    await pickFiles(page, panel.getByRole('button', { name: 'Upload files' }), [{ name: BRIEF, mimeType: 'text/markdown', buffer: Buffer.from(BRIEF_TEXT) }]);
    const files = panel.getByRole('list', { name: 'Files' });
    const brief = files.getByRole('listitem').filter({ hasText: BRIEF });
    await expect(brief).toContainText('You');
    await expect(brief).toContainText(`${Buffer.byteLength(BRIEF_TEXT)} bytes`);
    await expect(brief).toContainText('v1');

    // Attach a second file in the request composer; it shows as attached before the send.
    const composer = page.getByRole('region', { name: 'Composer' });
    await pickFiles(page, composer.getByRole('button', { name: 'Attach files' }), [{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain notes\n') }]);
    const attached = composer.getByRole('list', { name: 'Attachments' });
    await expect(attached.getByRole('button', { name: 'Remove notes.txt' })).toBeVisible(FIRST_LOAD);

    // The member reads the brief and writes its summary twice (two versions), as the scripted model is told.
    const directives = [
      `/call read_file {"name":"${BRIEF}"}`,
      `/call write_file {"name":"summary.md","content":${JSON.stringify(SUMMARY_V1)}}`,
      `/call write_file {"name":"summary.md","content":${JSON.stringify(SUMMARY_V2)},"expected_revision":1}`,
      '/reply Wrote summary.md',
    ].join('\n');
    await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
    await composer.getByRole('combobox', { name: 'Message to team' }).fill(directives);
    await composer.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(attached).toBeHidden();

    // The artifact appears by push (no reload), by the member, at version 2.
    const summary = files.getByRole('listitem').filter({ hasText: 'summary.md' });
    await expect(summary).toContainText('Writer', { timeout: RESULT_TIMEOUT });
    await expect(summary).toContainText('v2', { timeout: RESULT_TIMEOUT });
    await expect(files.getByRole('listitem').filter({ hasText: 'notes.txt' })).toBeVisible();

    // Preview: the Markdown rendered (a heading), not its source.
    await summary.getByRole('button', { name: 'Preview summary.md' }).click();
    const dialog = page.getByRole('dialog', { name: 'summary.md' });
    await expect(dialog).toHaveJSProperty('open', true);
    await expect(dialog.getByRole('heading', { name: 'Summary', exact: true })).toBeVisible();
    await expect(dialog.getByText('Second draft 東京 😀.')).toBeVisible();
    await expect(dialog.getByText('Version 2 of 2 · Writer')).toBeVisible();
    expect(await violations(page, 'dialog')).toEqual([]);

    // Compare versions: each changed line is marked by a sign and by words, not by colour alone.
    await dialog.getByRole('button', { name: 'Compare versions' }).click();
    const changes = dialog.getByRole('list', { name: 'Changes from version 1 to version 2' });
    await expect(changes.getByRole('listitem').filter({ hasText: 'Removed: First draft.' })).toBeVisible();
    await expect(changes.getByRole('listitem').filter({ hasText: 'Added: Second draft 東京 😀.' })).toBeVisible();
    await expect(dialog.getByText(/3 lines added, 1 removed/)).toBeVisible();
    expect(await violations(page, 'dialog')).toEqual([]);

    // Download the version shown: the file's own name and bytes.
    const download = page.waitForEvent('download');
    await dialog.getByRole('link', { name: 'Download version 2 of summary.md' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('summary.md');
    expect(await readFile(await saved.path(), 'utf8')).toBe(SUMMARY_V2);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();

    if (layout.viewport.width === 390) {
      const root = await rootScrollsSideways(page);
      expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
      const overflow = await measureHorizontalOverflow(page);
      expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
    }
    expect(await violations(page, 'main')).toEqual([]);

    // Delete with the kit's confirm dialog: Cancel first keeps it, Delete removes it from the list.
    await summary.getByRole('button', { name: 'Delete summary.md' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete summary.md?' });
    await expect(confirm).toContainText('All 2 versions of this file are deleted.');
    await confirm.getByRole('button', { name: 'Delete file' }).click();
    await expect(confirm).toBeHidden();
    await expect(summary).toHaveCount(0);
    const left = await api.get(`/api/v1/teams/${team.id}/files`);
    expect(((await left.json()) as { files: Array<{ name: string }> }).files.map((f) => f.name).sort()).toEqual([BRIEF, 'notes.txt'].sort());
  });
}

test('a file past the limit is refused in words and nothing is listed', async ({ page, api }) => {
  const team = await createTeam(api, 'Limits', [{ name: 'Writer' }, { name: 'Reader' }]);
  const panel = await openTeam(page, team, layouts[0]!);
  // One byte past the default 25 MB limit (LIMITS.files.maxBytes), from a file on disk: the browser reads it itself
  // (a buffer this size handed over the protocol takes longer than the picker waits).
  const dir = await mkdtemp(path.join(os.tmpdir(), 'files-e2e-'));
  const big = path.join(dir, 'big.bin');
  await writeFile(big, Buffer.alloc(25 * 1024 * 1024 + 1, 1));
  const chooser = page.waitForEvent('filechooser');
  await panel.getByRole('button', { name: 'Upload files' }).click();
  await (await chooser).setFiles(big);
  const uploads = panel.getByRole('list', { name: 'Uploads' });
  await expect(uploads.getByRole('alert')).toContainText(/big\.bin: .*(at most 25 MiB|larger than the upload limit)/i, { timeout: RESULT_TIMEOUT });
  await expect(panel.getByText('No files yet. Upload one, or drop it here.')).toBeVisible();
  await uploads.getByRole('button', { name: 'Remove big.bin' }).click();
  await expect(uploads).toBeHidden();
  await rm(dir, { recursive: true, force: true });
  const listed = await api.get(`/api/v1/teams/${team.id}/files`);
  expect(((await listed.json()) as { files: unknown[] }).files).toEqual([]);
});

test('another account cannot open a file’s URL: 404 on its content, preview and detail', async ({ api, accounts, browser }) => {
  const team = await createTeam(api, 'Private', [{ name: 'Writer' }, { name: 'Reader' }]);
  const up = await api.post(`/api/v1/teams/${team.id}/files?name=secret.txt`, { data: Buffer.from('only mine\n'), headers: { 'content-type': 'application/octet-stream' } });
  expect(up.status(), await up.text()).toBe(201);
  const { file } = (await up.json()) as { file: { id: string } };

  const other = await accounts.create('other');
  const context = await browser.newContext({ storageState: other.storageState });
  const page = await context.newPage();
  for (const path of [`/api/v1/files/${file.id}/content?revision=1`, `/api/v1/files/${file.id}/preview?revision=1`, `/api/v1/files/${file.id}`]) {
    const res = await page.request.get(path);
    expect(res.status(), path).toBe(404);
    expect(await res.text()).not.toContain('only mine');
  }
  await context.close();
});
