import type { Page, Request } from '@playwright/test';
import { expect, measureHorizontalOverflow, test } from './fixtures';
import { createAgent, getAgent, luminanceOf, PAGE_DATA, rootScrollsSideways } from './support/seed';
import { isActionCall } from './support/server-actions';

const MODEL_HINT = 'Use "scripted" or provider:model';

/** The agent cards' headings on /agents (each card's name), in list order. */
const agentNames = (page: Page) => page.getByRole('main').getByRole('heading', { level: 2 });
/** One agent's card on /agents. */
const card = (page: Page, name: string) =>
  page.getByRole('main').getByRole('listitem').filter({ has: page.getByRole('heading', { level: 2, name, exact: true }) });

/**
 * Agent writes, recorded so a test can prove the browser refused before sending: the form's create/update server
 * action (its arguments carry the agent's maxTurns) or a POST/PATCH to the agents API.
 */
function recordAgentWrites(page: Page): Request[] {
  const writes: Request[] = [];
  page.on('request', (r) => {
    const toApi = (r.method() === 'POST' || r.method() === 'PATCH') && new URL(r.url()).pathname.startsWith('/api/v1/agents');
    if (toApi || isActionCall(r, 'maxTurns')) writes.push(r);
  });
  return writes;
}

test('creates an agent through the form and lists it', async ({ page, api }) => {
  // Three page loads and a save: about 9 s on a quiet machine, just over 30 s on a very busy one.
  test.setTimeout(45_000);
  await page.goto('/agents');
  await expect(page.getByText('No agents yet')).toBeVisible(PAGE_DATA);
  await page.getByRole('link', { name: 'New agent' }).click();
  await expect(page).toHaveURL(/\/agents\/new$/, PAGE_DATA);
  await expect(page.getByRole('heading', { level: 1, name: 'New agent' })).toBeVisible();

  await expect(page.getByLabel('Model')).toHaveValue('scripted');
  await expect(page.getByLabel('Max turns')).toHaveValue('25');
  const timeLimit = page.getByLabel('Time limit (minutes)');
  await expect(timeLimit).toHaveValue(''); // empty = the instance default
  await expect(timeLimit).toHaveAccessibleDescription(/1–120\. How long one run may take/);

  await page.getByLabel('Name').fill('Researcher 🔬');
  await expect(page.getByText('12 / 64 characters')).toBeVisible(); // the emoji counts once
  await page.getByLabel('Description').fill('Finds sources and open questions');
  await page.getByLabel('Instructions').fill('Be careful.\nCite everything.');
  await page.getByRole('checkbox', { name: 'Utility' }).check();
  await page.getByRole('group', { name: 'Tools that need approval' }).getByRole('checkbox', { name: 'calculator' }).check();
  await page.getByLabel('Max turns').fill('12');
  await timeLimit.fill('121');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(timeLimit).toHaveAccessibleDescription(/Must be a whole number of minutes from 1 to 120/);
  await timeLimit.fill('120');
  await page.getByRole('button', { name: 'Create agent' }).click();

  await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
  await expect(agentNames(page)).toHaveText(['Researcher 🔬']);
  const researcher = card(page, 'Researcher 🔬');
  await expect(researcher).toContainText('Finds sources and open questions');
  await expect(researcher).toContainText('scripted');
  await expect(researcher).toContainText('Utility');

  // Everything typed reached the server.
  const list = (await (await api.get('/api/v1/agents')).json()) as { agents: Array<{ id: string }> };
  expect(list.agents).toHaveLength(1);
  const { agent } = await getAgent(api, list.agents[0]!.id);
  expect(agent).toMatchObject({
    name: 'Researcher 🔬',
    description: 'Finds sources and open questions',
    instructions: 'Be careful.\nCite everything.',
    model: 'scripted',
    toolGroups: ['utility'],
    approvalTools: ['calculator'],
    maxTurns: 12,
    timeLimitMinutes: 120,
  });
});

test('shows each invalid field next to it, keeps the typed text, and sends nothing until it is valid', async ({ page, api }) => {
  const writes = recordAgentWrites(page);
  await page.goto('/agents/new');
  const name = page.getByLabel('Name');
  const model = page.getByLabel('Model');
  const maxTurns = page.getByLabel('Max turns');
  const tooLong = 'N'.repeat(65);

  await name.fill(tooLong);
  await model.fill('gpt4');
  await maxTurns.fill('151');
  await page.getByRole('button', { name: 'Create agent' }).click();

  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(/Must be at most 64 characters \(now 65\)/);
  await expect(model).toHaveAttribute('aria-invalid', 'true');
  await expect(model).toHaveAccessibleDescription(new RegExp(MODEL_HINT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await expect(maxTurns).toHaveAccessibleDescription(/Must be a whole number from 1 to 150/);
  await expect(page.getByLabel('Description')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(name).toBeFocused(); // the first invalid field
  await expect(name).toHaveValue(tooLong);
  await expect(model).toHaveValue('gpt4');
  await expect(maxTurns).toHaveValue('151');
  await expect(page.getByText('65 / 64 characters')).toBeVisible();

  // After the first submit each field re-checks as it changes.
  await name.press('Backspace');
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Must be at most 64 characters')).toHaveCount(0);
  await expect(model).toHaveAttribute('aria-invalid', 'true');
  await model.fill('openai:gpt-4.1-mini');
  await expect(model).not.toHaveAttribute('aria-invalid', 'true');
  await maxTurns.fill('150');
  await expect(maxTurns).not.toHaveAttribute('aria-invalid', 'true');
  expect(writes, 'the browser sent an invalid agent').toHaveLength(0);

  // The server's own refusal (a name taken, compared without case) lands next to the field too.
  await createAgent(api, { name: 'N'.repeat(64).toLowerCase() });
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(name).toHaveAccessibleDescription(/You already have an agent named/);
  await expect(name).toBeFocused();
  await expect(name).toHaveValue('N'.repeat(64));
  await expect(model).toHaveValue('openai:gpt-4.1-mini');
  await expect(page).toHaveURL(/\/agents\/new$/);
  expect(writes).toHaveLength(1);

  await name.fill('Planner');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
  await expect(agentNames(page)).toHaveText(['n'.repeat(64), 'Planner']);
  await expect(card(page, 'Planner')).toContainText('openai:gpt-4.1-mini');
});

test('search filters the list by name or description', async ({ page, api }) => {
  await createAgent(api, { name: 'Researcher', description: 'Finds sources' });
  await createAgent(api, { name: 'Reviewer', description: 'Checks drafts for errors' });
  await createAgent(api, { name: 'Writer', description: 'Drafts the text' });
  await page.goto('/agents');
  await expect(agentNames(page)).toHaveText(['Researcher', 'Reviewer', 'Writer'], PAGE_DATA);

  const search = page.getByRole('searchbox', { name: 'Search agents' });
  await search.fill('re');
  await expect(agentNames(page)).toHaveText(['Researcher', 'Reviewer']);
  await search.fill('DRAFTS'); // descriptions match too, without case
  await expect(agentNames(page)).toHaveText(['Reviewer', 'Writer']);
  await search.fill('nothing like this');
  await expect(page.getByText('No matching agents')).toBeVisible();
  await expect(agentNames(page)).toHaveCount(0);
  await search.fill('');
  await expect(agentNames(page)).toHaveText(['Researcher', 'Reviewer', 'Writer']);
});

test('search takes 200 emoji or CJK characters; one more, or a pasted control character, is explained at the field and never sent', async ({ page, api }) => {
  // The server counts characters (an emoji is one) and refuses control characters; the box counted UTF-16 units,
  // so it stopped at 100 emoji; and a pasted control character (Word's line break, U+000B) turned the list into a load
  // error.
  await createAgent(api, { name: 'Violinist', description: '🎻'.repeat(200) });
  await createAgent(api, { name: 'Calligrapher', description: '名'.repeat(200) });
  const searches: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === '/api/v1/agents' && url.searchParams.has('query')) searches.push(url.searchParams.get('query')!);
  });
  await page.goto('/agents');
  await expect(agentNames(page)).toHaveText(['Calligrapher', 'Violinist'], PAGE_DATA);

  const search = page.getByRole('searchbox', { name: 'Search agents' });
  await search.fill('🎻'.repeat(200));
  await expect(agentNames(page)).toHaveText(['Violinist']);
  await expect(search).not.toHaveAttribute('aria-invalid', 'true');

  await search.fill('🎻'.repeat(201));
  await expect(search).toHaveAccessibleDescription('Search is too long: at most 200 characters (now 201 characters)');
  await expect(search).toHaveAttribute('aria-invalid', 'true');
  await expect(agentNames(page)).toHaveText(['Violinist']); // the last search's results stay, no load error
  await expect(page.getByText('Couldn’t load your agents.')).toHaveCount(0);

  await search.fill('名'.repeat(200));
  await expect(agentNames(page)).toHaveText(['Calligrapher']);
  await search.fill('名'.repeat(201));
  await expect(search).toHaveAccessibleDescription('Search is too long: at most 200 characters (now 201 characters)');

  await search.fill('Violin\u000bist');
  await expect(search).toHaveAccessibleDescription('Search contains a control character (U+000B); remove it');
  await expect(agentNames(page)).toHaveText(['Calligrapher']);

  await search.fill('Violin');
  await expect(agentNames(page)).toHaveText(['Violinist']);
  await expect(search).not.toHaveAttribute('aria-invalid', 'true');
  // What must not happen: a search the server refuses leaves the browser.
  expect(searches.filter((q) => [...q].length > 200 || /\u000b/.test(q))).toEqual([]);
  expect(searches).toContain('🎻'.repeat(200));
});

test('edits an agent and the list shows the change', async ({ page, api }) => {
  const agent = await createAgent(api, { name: 'Drafter', description: 'Writes first drafts', maxTurns: 25 });
  await page.goto('/agents');
  await expect(agentNames(page)).toHaveText(['Drafter'], PAGE_DATA);
  await page.getByRole('link', { name: 'Edit Drafter' }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/edit$`), PAGE_DATA);

  const name = page.getByLabel('Name');
  await expect(name).toHaveValue('Drafter', PAGE_DATA);
  await expect(page.getByLabel('Description')).toHaveValue('Writes first drafts');
  await name.fill('Editor');
  await page.getByLabel('Description').fill('Polishes drafts until they shine');
  await page.getByLabel('Max turns').fill('40');
  await page.getByRole('button', { name: 'Save changes' }).click();

  await expect(page).toHaveURL(/\/agents$/, PAGE_DATA);
  await expect(agentNames(page)).toHaveText(['Editor']);
  await expect(card(page, 'Editor')).toContainText('Polishes drafts until they shine');
  expect((await getAgent(api, agent.id)).agent).toMatchObject({
    name: 'Editor',
    description: 'Polishes drafts until they shine',
    maxTurns: 40,
  });

  // Reopening the form shows the saved values.
  await page.getByRole('link', { name: 'Edit Editor' }).click();
  await expect(page.getByLabel('Name')).toHaveValue('Editor', PAGE_DATA);
  await expect(page.getByLabel('Max turns')).toHaveValue('40');
});

test('deletes an agent only after the confirmation dialog', async ({ page, api }) => {
  const keep = await createAgent(api, { name: 'Keeper' });
  const doomed = await createAgent(api, { name: 'Temporary' });
  await page.goto('/agents');
  await expect(agentNames(page)).toHaveText(['Keeper', 'Temporary'], PAGE_DATA);

  await page.getByRole('button', { name: 'Delete Temporary' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete agent?' });
  await expect(dialog).toContainText('“Temporary” will be deleted');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(agentNames(page)).toHaveText(['Keeper', 'Temporary']);

  await page.getByRole('button', { name: 'Delete Temporary' }).click();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await getAgent(api, doomed.id)).status).toBe(200);

  await page.getByRole('button', { name: 'Delete Temporary' }).click();
  await dialog.getByRole('button', { name: 'Delete agent' }).click();
  await expect(dialog).toBeHidden();
  await expect(agentNames(page)).toHaveText(['Keeper']);
  expect((await getAgent(api, doomed.id)).status).toBe(404);
  expect((await getAgent(api, keep.id)).status).toBe(200);
});

test('the agent form at 390×844 in dark mode: dark colours, errors shown, nothing sticks out sideways', async ({ page, api }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'light' });
  const agent = await createAgent(api, { name: 'Phone agent', description: 'x'.repeat(300) });
  await page.goto(`/agents/${agent.id}/edit`);
  await expect(page.getByLabel('Name')).toHaveValue('Phone agent', PAGE_DATA);

  await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).click();
  await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
  // The dark: classes really apply: a dark page and field, light text.
  expect(await luminanceOf(page.locator('body'), 'background-color')).toBeLessThan(0.05);
  expect(await luminanceOf(page.getByLabel('Name'), 'background-color')).toBeLessThan(0.05);
  expect(await luminanceOf(page.getByText('Max turns', { exact: true }), 'color')).toBeGreaterThan(0.5);

  // Long unbroken input and every error visible at once must still fit the width.
  await page.getByLabel('Name').fill('W'.repeat(80));
  await page.getByLabel('Model').fill('gpt4');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByLabel('Name')).toHaveAccessibleDescription(/Must be at most 64 characters \(now 80\)/);
  await expect(page.getByLabel('Model')).toHaveAttribute('aria-invalid', 'true');

  const root = await rootScrollsSideways(page);
  expect(root.scrollWidth).toBeLessThanOrEqual(root.clientWidth);
  const overflow = await measureHorizontalOverflow(page);
  expect(overflow.px, `sticks out: ${overflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);

  // The list at the same size, with the long description.
  await page.goto('/agents');
  await expect(agentNames(page)).toHaveText(['Phone agent'], PAGE_DATA);
  await expect(page.locator('html')).toHaveClass(/(^|\s)dark(\s|$)/);
  const listOverflow = await measureHorizontalOverflow(page);
  expect(listOverflow.px, `sticks out: ${listOverflow.offenders.join(', ')}`).toBeLessThanOrEqual(0);
});
