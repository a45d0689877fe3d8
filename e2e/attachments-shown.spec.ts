import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { createAgent, createConversation, PAGE_DATA } from './support/seed';
import { card, createTeam, member, openTeam, RESULT_TIMEOUT } from './support/team-flows';

/**
 * Files attached through the API show where they were sent (issue 29): under the person's chat message and on the
 * team's job card, each opening the Files panel's preview and downloading its bytes; deleted since, it stays listed
 * by name as deleted. What must not happen: a sent message or request that shows no trace of its files, or a link
 * left to a file that is gone.
 */
const NAME = 'notes 東京 😀.md';
const TEXT = '# Notes\n\nThe figures 東京 😀.\n';

async function upload(api: APIRequestContext, scope: 'teams' | 'conversations', id: string): Promise<{ id: string; size: number }> {
  const res = await api.post(`/api/v1/${scope}/${id}/files?name=${encodeURIComponent(NAME)}`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from(TEXT),
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { file: { id: string; size: number } }).file;
}

/** The sent file opens in the preview dialog and downloads as itself. */
async function opensAndDownloads(page: Page, files: Locator) {
  const item = files.getByRole('listitem').filter({ hasText: NAME });
  await expect(item).toContainText(`${Buffer.byteLength(TEXT)} bytes`);
  await item.getByRole('button', { name: NAME }).click();
  const dialog = page.getByRole('dialog', { name: NAME });
  await expect(dialog).toHaveJSProperty('open', true);
  await expect(dialog.getByRole('heading', { name: 'Notes', exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  const download = page.waitForEvent('download');
  await item.getByRole('link', { name: `Download ${NAME}` }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe(NAME);
  expect(await readFile(await saved.path(), 'utf8')).toBe(TEXT);
}

/** Deleted since: the name stays, marked deleted, with nothing to open. */
async function showsDeleted(files: Locator) {
  const item = files.getByRole('listitem').filter({ hasText: NAME });
  await expect(item).toContainText('deleted');
  await expect(item.getByRole('button')).toHaveCount(0);
  await expect(item.getByRole('link')).toHaveCount(0);
}

test('a chat message lists its attached file, which opens, downloads and later shows as deleted', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Helper' });
  const { id } = await createConversation(api, agent.id);
  const file = await upload(api, 'conversations', id);
  const sent = await api.post(`/api/v1/conversations/${id}/messages`, { data: { text: '/reply read it', attachments: [file.id] } });
  expect(sent.status(), await sent.text()).toBe(202);

  await page.goto(`/conversations/${id}`);
  // The message box is editable once the page has hydrated: a click before that is lost (e2e/README.md).
  await expect(page.getByRole('combobox', { name: 'Message', exact: true })).toBeEditable(PAGE_DATA);
  const files = page.getByRole('list', { name: 'Attached files' });
  await expect(files.getByRole('listitem')).toHaveCount(1);
  await opensAndDownloads(page, files);

  expect((await api.delete(`/api/v1/files/${file.id}`)).status()).toBe(204);
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Message', exact: true })).toBeEditable(PAGE_DATA);
  await showsDeleted(page.getByRole('list', { name: 'Attached files' }));
});

test('a team’s job card lists the file sent with the request, which opens, downloads and later shows as deleted', async ({ page, api }) => {
  const team = await createTeam(api, 'Figures', [{ name: 'Writer' }, { name: 'Reader' }]);
  const file = await upload(api, 'teams', team.id);
  const res = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [member(team, 'Writer').id], text: 'Summarise the notes', draftKey: crypto.randomUUID(), attachments: [file.id] },
  });
  expect(res.status(), await res.text()).toBe(201);

  await openTeam(page, team.id);
  const job = card(page, 'You → @Writer');
  await expect(job).toBeVisible({ timeout: RESULT_TIMEOUT });
  const files = job.getByRole('list', { name: 'Attached files' });
  await expect(files.getByRole('listitem')).toHaveCount(1);
  await opensAndDownloads(page, files);

  expect((await api.delete(`/api/v1/files/${file.id}`)).status()).toBe(204);
  await openTeam(page, team.id);
  await showsDeleted(card(page, 'You → @Writer').getByRole('list', { name: 'Attached files' }));
});
