import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';
import { FIRST_LOAD, expectLive } from './support/team-flows';

/**
 * The person edits the team's public state from the workspace's Team state panel: add, edit, archive, restore, and
 * settle a save that met someone else's change (made here through the API in between, as a member's tool would).
 * What must not happen: a save that silently overwrites the other change.
 */
type Team = { id: string; members: Array<{ id: string; name: string }> };
type Entry = { id: string; revision: number; title: string; content: string };

async function makeTeam(api: APIRequestContext): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Planner', 'Checker']) {
    const res = await api.post('/api/v1/agents', { data: { name } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Launch crew', goal: 'Launch', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

const layouts = [
  { name: 'desktop, light', viewport: { width: 1280, height: 900 }, scheme: 'light' as const },
  { name: '390 px, dark', viewport: { width: 390, height: 844 }, scheme: 'dark' as const },
];

/** Serious or critical axe violations inside one part of the page (contrast included), one line each. */
async function violations(page: Page, within: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(within).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
}
const settledDialog = async (dialog: Locator) => {
  await expect(dialog).toBeVisible();
  // The dialog opens with showModal(); let its first paint finish before measuring contrast.
  await expect(dialog).toHaveJSProperty('open', true);
};

async function open(page: Page, team: Team, layout: (typeof layouts)[number]) {
  await page.setViewportSize(layout.viewport);
  await page.emulateMedia({ colorScheme: layout.scheme });
  await page.goto(`/teams/${team.id}`);
  if (layout.scheme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  const panel = page.getByRole('region', { name: 'Team state' });
  await expect(panel.getByRole('button', { name: 'Add entry' })).toBeVisible(FIRST_LOAD);
  await expectLive(page);
  return panel;
}

for (const layout of layouts) {
  test(`add, edit, archive and restore a state entry (${layout.name})`, async ({ page, api }) => {
    const team = await makeTeam(api);
    const panel = await open(page, team, layout);

    await panel.getByRole('button', { name: 'Add entry' }).click();
    const add = page.getByRole('dialog', { name: 'Add to team state' });
    await add.getByLabel('Kind').selectOption('requirement');
    await add.getByLabel('Title').fill('Budget 東京 😀');
    // Counted as the server counts: the emoji once, 4 bytes; each CJK character 3.
    await expect(add.getByText('11 / 80 characters · 18 / 160 bytes')).toBeVisible();
    await add.getByLabel('Content').fill('Stay under 5k.');
    await settledDialog(add);
    expect(await violations(page, 'dialog')).toEqual([]);
    await expect(add.getByText('14 / 1,000 characters · 14 / 2,000 bytes')).toBeVisible();
    // One past the title bound is stopped in the form, with the numbers.
    await add.getByLabel('Title').fill('😀'.repeat(41));
    await add.getByRole('button', { name: 'Add entry' }).click();
    await expect(add.getByText(/Title is too long: at most 80 characters and 160 UTF-8 bytes \(now 41 characters, 164 bytes\)/)).toBeVisible();
    // The focus goes to the field that says why, not left on the button.
    await expect(add.getByLabel('Title')).toBeFocused();
    await add.getByLabel('Title').fill('Budget 東京 😀');
    await add.getByRole('button', { name: 'Add entry' }).click();
    await expect(add).toBeHidden();

    const card = panel.getByRole('article', { name: 'Budget 東京 😀' });
    await expect(card).toContainText('Stay under 5k.');
    await expect(card).toContainText('By You');
    await expect(panel.getByRole('region', { name: 'Requirements' })).toContainText('Budget 東京 😀');
    await expect(panel.getByText(/1 of 20 entries used/)).toBeVisible();

    await card.getByRole('button', { name: /^Edit/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit requirement' });
    await edit.getByLabel('Content').fill('Stay under 4k.');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit).toBeHidden();
    await expect(card).toContainText('Stay under 4k.');
    await expect(card).toContainText('rev 2');

    // The API sees what the panel wrote, stamped as the person's.
    const listed = (await (await api.get(`/api/v1/teams/${team.id}/state`)).json()) as { entries: Array<Entry & { createdBy: { name: string } }> };
    expect(listed.entries.map((e) => [e.title, e.content, e.revision, e.createdBy.name])).toEqual([['Budget 東京 😀', 'Stay under 4k.', 2, 'You']]);

    await card.getByRole('button', { name: /^Archive/ }).click();
    await expect(panel.getByText('No active entries.')).toBeVisible();
    await panel.getByText('Archived (1)').click();
    const archived = panel.getByRole('article', { name: 'Budget 東京 😀' });
    await archived.getByRole('button', { name: /^Restore/ }).click();
    await expect(panel.getByRole('region', { name: 'Requirements' })).toContainText('Budget 東京 😀');
    await expect(panel.getByText('Archived (1)')).toBeHidden();
  });

  test(`a conflicting change in between: both versions side by side; keep theirs, keep mine, edit again (${layout.name})`, async ({ page, api }) => {
    const team = await makeTeam(api);
    const created = await api.post(`/api/v1/teams/${team.id}/state`, { data: { requestId: crypto.randomUUID(), kind: 'plan', title: 'Launch plan', content: 'Ship in May' } });
    expect(created.status()).toBe(201);
    let entry = ((await created.json()) as { entry: Entry }).entry;
    const panel = await open(page, team, layout);
    const card = panel.getByRole('article', { name: 'Launch plan' });
    await expect(card).toContainText('Ship in May');
    // Push: a write from elsewhere shows up in the open panel without a reload.
    const other = await api.post(`/api/v1/teams/${team.id}/state`, { data: { requestId: crypto.randomUUID(), kind: 'question', title: 'Which vendor?', content: '' } });
    expect(other.status()).toBe(201);
    await expect(panel.getByRole('article', { name: 'Which vendor?' })).toBeVisible();

    /** Someone else saves while the person's edit dialog is open. */
    const changeInBetween = async (content: string) => {
      const res = await api.patch(`/api/v1/teams/${team.id}/state/${entry.id}`, { data: { expectedRevision: entry.revision, content } });
      expect(res.status(), await res.text()).toBe(200);
      entry = ((await res.json()) as { entry: Entry }).entry;
    };
    const startEdit = async (mine: string) => {
      await card.getByRole('button', { name: /^Edit/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit plan' });
      await dialog.getByLabel('Content').fill(mine);
      return dialog;
    };
    const conflict = page.getByRole('dialog', { name: 'This entry changed while you were editing' });

    // 1. Keep theirs: nothing of mine is written.
    let dialog = await startEdit('Ship in April');
    await changeInBetween('Ship in June (vendor delay)');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(conflict).toBeVisible();
    await expect(conflict.getByRole('region', { name: 'Your version' })).toContainText('Ship in April');
    await expect(conflict.getByRole('region', { name: 'Current version' })).toContainText('Ship in June (vendor delay)');
    await expect(conflict.getByRole('region', { name: 'Current version' })).toContainText(`Revision ${entry.revision}`);
    await settledDialog(conflict);
    expect(await violations(page, 'dialog')).toEqual([]);
    await conflict.getByRole('button', { name: 'Keep theirs' }).click();
    await expect(conflict).toBeHidden();
    await expect(card).toContainText('Ship in June (vendor delay)');
    const afterTheirs = (await (await api.get(`/api/v1/teams/${team.id}/state`)).json()) as { entries: Entry[] };
    expect(afterTheirs.entries[0]).toMatchObject({ content: 'Ship in June (vendor delay)', revision: entry.revision });

    // 2. Keep mine: saved over the revision the person has now seen.
    await expect(card).toContainText(`rev ${entry.revision}`);
    dialog = await startEdit('Ship in April');
    await changeInBetween('Ship in July');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(conflict.getByRole('region', { name: 'Current version' })).toContainText('Ship in July');
    await conflict.getByRole('button', { name: 'Keep mine' }).click();
    await expect(conflict).toBeHidden();
    await expect(card).toContainText('Ship in April');

    // 3. Edit again: the form comes back with my text, based on the current revision.
    const mineRevision = entry.revision + 1;
    await expect(card).toContainText(`rev ${mineRevision}`);
    entry = { ...entry, revision: mineRevision };
    dialog = await startEdit('Ship in April, soft launch');
    await changeInBetween('Ship in August');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await conflict.getByRole('button', { name: 'Edit again' }).click();
    const again = page.getByRole('dialog', { name: 'Edit plan' });
    await expect(again.getByLabel('Content')).toHaveValue('Ship in April, soft launch');
    await again.getByLabel('Content').fill('Ship in August, soft launch in April');
    await again.getByRole('button', { name: 'Save' }).click();
    await expect(again).toBeHidden();
    await expect(card).toContainText('Ship in August, soft launch in April');
    const final = (await (await api.get(`/api/v1/teams/${team.id}/state`)).json()) as { entries: Entry[] };
    expect(final.entries[0]).toMatchObject({ content: 'Ship in August, soft launch in April', revision: entry.revision + 1 });
  });
}

test('the team state fills up while the add dialog is open: the refusal says why and the draft stays', async ({ page, api }) => {
  const team = await makeTeam(api);
  const add = async (title: string) => {
    const res = await api.post(`/api/v1/teams/${team.id}/state`, { data: { requestId: crypto.randomUUID(), kind: 'finding', title, content: '' } });
    expect(res.status(), await res.text()).toBe(201);
  };
  for (let i = 1; i < 20; i++) await add(`Finding ${i}`);
  const panel = await open(page, team, layouts[0]!);
  await expect(panel.getByText(/19 of 20 entries used/)).toBeVisible();

  await panel.getByRole('button', { name: 'Add entry' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add to team state' });
  await dialog.getByLabel('Title').fill('My last word');
  await add('Finding 20'); // a member (here: the API) takes the last slot first
  await dialog.getByRole('button', { name: 'Add entry' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Team state is full: 20 entries, archived ones included');
  // What must not happen: a 21st entry, or the person's text thrown away.
  await expect(dialog.getByLabel('Title')).toHaveValue('My last word');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByText(/20 of 20 entries used/)).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Add entry' })).toBeDisabled();
  await expect(panel.getByText('The team state is full: edit an existing entry instead of adding one.')).toBeVisible();
});
