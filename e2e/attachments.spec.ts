import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page, Response } from '@playwright/test';
import { DATA_DIR } from './env';
import { expect, test } from './fixtures';
import { PAGE_DATA, openChat } from './support/seed';
import { FIRST_LOAD, RESULT_TIMEOUT, card, createTeam, expectLive } from './support/team-flows';

/**
 * Attachments (issue 29) as a person makes them in both composers, the chat's and the team request's: a file picked
 * with the system picker, one dragged and dropped (a real DataTransfer on the drop zone), one pasted (a clipboard
 * carrying a file); the send carries their ids, and the member reads them (the scripted model's `/call read_file`).
 * A cancel in the middle of a throttled upload: what must not happen is a file entry appearing, or any part of the
 * content being kept (the server's staging file is gone, the scope lists nothing).
 */
type Payload = { name: string; mimeType: string; text: string };

// Short texts: the scripted answer shows the first 200 characters of each tool result, the file's text after its id.
const PICKED: Payload = { name: 'picked.txt', mimeType: 'text/plain', text: 'picked 東京 😀 alpha' };
const DROPPED: Payload = { name: 'dropped.md', mimeType: 'text/markdown', text: 'dropped 東京 😀 beta' };
const PASTED: Payload = { name: 'pasted.txt', mimeType: 'text/plain', text: 'pasted 東京 😀 gamma' };
const ALL = [PICKED, DROPPED, PASTED];

const asFile = (p: Payload) => ({ name: p.name, mimeType: p.mimeType, buffer: Buffer.from(p.text) });

/** Pick files with the system picker the button opens. */
async function pickFiles(page: Page, button: Locator, files: Payload[]) {
  const chooser = page.waitForEvent('filechooser');
  await button.click();
  await (await chooser).setFiles(files.map(asFile));
}

/**
 * Drag files over `target` and drop them: the events a browser fires, each a DragEvent carrying one DataTransfer
 * with the files. Answers whether the drop zone took the drop (its dragover and drop default prevented: otherwise
 * the browser would open the file in place of the page).
 */
async function dropFiles(target: Locator, files: Payload[]): Promise<boolean> {
  return target.evaluate((el, list) => {
    const dataTransfer = new DataTransfer();
    for (const f of list) dataTransfer.items.add(new File([f.text], f.name, { type: f.mimeType }));
    const fire = (type: string) => {
      const event = new DragEvent(type, { dataTransfer, bubbles: true, cancelable: true });
      el.dispatchEvent(event);
      return event.defaultPrevented;
    };
    fire('dragenter');
    return fire('dragover') && fire('drop');
  }, files);
}

/** Paste into `target` a clipboard holding files (as a screenshot or a copied file arrives). */
async function pasteFiles(target: Locator, files: Payload[]) {
  await target.evaluate((el, list) => {
    const clipboardData = new DataTransfer();
    for (const f of list) clipboardData.items.add(new File([f.text], f.name, { type: f.mimeType }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
  }, files);
}

/** The ids the server gave the uploads of these names, as their 201 answers arrive. */
function uploadedIds(page: Page, names: string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  return new Promise((resolve) => {
    const onResponse = async (res: Response) => {
      if (res.request().method() !== 'POST' || !/\/files\?name=/.test(res.url()) || res.status() !== 201) return;
      const { file } = (await res.json()) as { file: { id: string; name: string } };
      if (!names.includes(file.name)) return;
      ids.set(file.name, file.id);
      if (ids.size === names.length) {
        page.off('response', onResponse);
        resolve(ids);
      }
    };
    page.on('response', onResponse);
  });
}

/** Attach the three files by picker, drop and paste, and wait until each is uploaded (its Remove button shows). */
async function attachAllThreeWays(page: Page, attachButton: Locator, dropZone: Locator, attached: Locator) {
  const ids = uploadedIds(page, ALL.map((f) => f.name));
  await pickFiles(page, attachButton, [PICKED]);
  expect(await dropFiles(dropZone, [DROPPED]), 'the composer takes the drop').toBe(true);
  await pasteFiles(dropZone, [PASTED]);
  for (const f of ALL) await expect(attached.getByRole('button', { name: `Remove ${f.name}` })).toBeVisible(FIRST_LOAD);
  return ids;
}

const readAll = ALL.map((f) => `/call read_file {"name":"${f.name}"}`).join('\n');

test('a chat message carries a picked, a dropped and a pasted file; the agent reads each', async ({ page, api }) => {
  await openChat(page, api, { name: 'Reader' });
  const box = page.getByRole('combobox', { name: 'Message', exact: true });
  await expect(box).toBeEditable(PAGE_DATA); // hydrated: a drop before React listens would be lost
  const attached = page.getByRole('list', { name: 'Attachments' });
  const ids = await attachAllThreeWays(page, page.getByRole('button', { name: 'Attach files' }), box, attached);

  // The send carries the three ids (whatever transport the composer uses), and the list empties.
  await box.fill(readAll);
  const sent = page.waitForRequest((req) => req.method() === 'POST' && ALL.every((f) => (req.postData() ?? '').includes(ids.get(f.name) ?? '\0')), FIRST_LOAD);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await sent;
  await expect(attached).toBeHidden();

  // The agent read each attachment: its answer quotes the start of each read_file result, the file's text in it.
  const history = page.getByRole('log', { name: 'Conversation history' });
  await expect(history).toContainText('Reader: done', { timeout: RESULT_TIMEOUT });
  for (const f of ALL) await expect(history).toContainText(f.text);
});

test('a team request carries a picked, a dropped and a pasted file; the member reads each', async ({ page, api }) => {
  const team = await createTeam(api, 'Attachments', [{ name: 'Writer' }, { name: 'Reader' }]);
  await page.goto(`/teams/${team.id}`);
  await expectLive(page);
  const composer = page.getByRole('region', { name: 'Composer' });
  const box = composer.getByRole('combobox', { name: 'Message to team' });
  const attached = composer.getByRole('list', { name: 'Attachments' });
  const ids = await attachAllThreeWays(page, composer.getByRole('button', { name: 'Attach files' }), box, attached);

  // Attached files are the workspace's: the Files panel lists them too.
  const files = page.getByRole('region', { name: 'Files' }).getByRole('list', { name: 'Files' });
  for (const f of ALL) await expect(files.getByRole('listitem').filter({ hasText: f.name })).toBeVisible();

  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await box.fill(readAll);
  const sent = page.waitForRequest((req) => req.method() === 'POST' && ALL.every((f) => (req.postData() ?? '').includes(ids.get(f.name) ?? '\0')), FIRST_LOAD);
  await composer.getByRole('button', { name: 'Send', exact: true }).click();
  await sent;
  await expect(attached).toBeHidden();

  const result = card(page, 'You → @Writer');
  await expect(result).toContainText('Writer: done', { timeout: RESULT_TIMEOUT });
  for (const f of ALL) await expect(result).toContainText(f.text);
});

test('cancelling an upload midway keeps nothing: no entry, no stored part', async ({ page, api }) => {
  const team = await createTeam(api, 'Cancel', [{ name: 'Writer' }, { name: 'Reader' }]);
  await page.goto(`/teams/${team.id}`);
  await expectLive(page);
  const panel = page.getByRole('region', { name: 'Files' });
  await expect(panel.getByText('No files yet. Upload one, or drop it here.')).toBeVisible(FIRST_LOAD);
  const composer = page.getByRole('region', { name: 'Composer' });

  // 4 MiB at 256 KiB/s: some 16 s on its way, so the cancel lands in the middle.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  const staging = path.join(DATA_DIR, 'files', 'tmp');
  const partsBefore = new Set(fs.existsSync(staging) ? fs.readdirSync(staging) : []);
  const chooser = page.waitForEvent('filechooser');
  await composer.getByRole('button', { name: 'Attach files' }).click();
  await (await chooser).setFiles({ name: 'slow.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4 * 1024 * 1024, 7) });

  const attached = composer.getByRole('list', { name: 'Attachments' });
  await expect(attached.getByRole('progressbar', { name: 'Uploading slow.bin' })).toBeVisible(FIRST_LOAD);
  // The server is writing it: a staging file of this upload has bytes in it.
  let part = '';
  await expect
    .poll(
      () => {
        const fresh = fs.existsSync(staging) ? fs.readdirSync(staging).filter((n) => !partsBefore.has(n)) : [];
        part = fresh.find((n) => fs.statSync(path.join(staging, n), { throwIfNoEntry: false })?.size) ?? '';
        return part;
      },
      { timeout: 10_000, message: 'the upload reached the server' },
    )
    .not.toBe('');
  await expect(attached.getByRole('progressbar', { name: 'Uploading slow.bin' })).not.toHaveAttribute('aria-valuenow', '100');

  await attached.getByRole('button', { name: 'Cancel upload of slow.bin' }).click();
  await expect(attached).toBeHidden();
  // What must not happen: the partial bytes kept (the staging file is removed, never renamed into the store) ...
  await expect.poll(() => fs.existsSync(path.join(staging, part)), { timeout: 10_000, message: 'the partial upload was discarded' }).toBe(false);
  // ... or a file entry: none in the workspace, by the API and in the panel after a reload.
  const listed = await api.get(`/api/v1/teams/${team.id}/files`);
  expect(((await listed.json()) as { files: unknown[] }).files).toEqual([]);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await page.reload();
  await expect(panel.getByText('No files yet. Upload one, or drop it here.')).toBeVisible(FIRST_LOAD);
});
