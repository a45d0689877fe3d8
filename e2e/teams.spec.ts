import type { APIRequestContext, Page, Request } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, horizontalOverflow, test } from './fixtures';
import { actionArgs, isActionCall } from './support/server-actions';
import { FIRST_LOAD, expectLive } from './support/team-flows';

// Each test creates its own account through the CLI and runs agents through the real scheduler; on a busy
// two-core machine that needs more than the default 30 s per test, while every single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });

// Agent runs go through the real scheduler with the embedded `scripted` model, so results take a moment.
const RESULT_TIMEOUT = 15_000;
/** The JSON API's door for team requests (scripts use it; the browser's composer uses a server action). */
const REQUESTS_API = /\/api\/v1\/teams\/[^/]+\/requests$/;

type Agent = { id: string; name: string };
type Team = { id: string; name: string; members: Array<{ id: string; name: string }> };

async function createAgent(api: APIRequestContext, name: string, description: string, toolGroups: string[] = []): Promise<Agent> {
  const res = await api.post('/api/v1/agents', { data: { name, description, toolGroups } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Agent;
}

async function createTeam(api: APIRequestContext, name: string, agents: Agent[]): Promise<Team> {
  const res = await api.post('/api/v1/teams', {
    data: { requestId: crypto.randomUUID(), name, goal: 'Ship a launch note', agentIds: agents.map((a) => a.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

async function seedTeam(api: APIRequestContext, name = 'Launch crew'): Promise<Team> {
  const agents = [
    await createAgent(api, 'Researcher', 'Finds sources'),
    await createAgent(api, 'Reviewer', 'Checks drafts'),
    await createAgent(api, 'Writer', 'Drafts text'),
  ];
  return createTeam(api, name, agents);
}

/** Open a team page and wait until its live feed is connected. */
async function openTeam(page: Page, teamId: string) {
  await page.goto(`/teams/${teamId}`);
  await expectLive(page);
}

const composer = (page: Page) => page.getByRole('combobox', { name: 'Message to team' });
const card = (page: Page, headline: string) => page.getByRole('article', { name: headline });

/**
 * Elements that stick out of the viewport sideways, unless an ancestor scrolls or clips them on purpose
 * (the member row scrolls horizontally on phones). The root scroll width alone can't see this, because
 * the global stylesheet hides horizontal overflow on html and body.
 */
async function elementsOutsideViewport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const insideScroller = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    return [...document.body.querySelectorAll('*')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && (r.right > width + 1 || r.left < -1) && !insideScroller(el);
      })
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '').slice(0, 60)}`);
  });
}

/**
 * Calls that would create team requests, recorded so a test can prove none was sent: the composer's server
 * action (its arguments carry the draftKey) or, were anything still to use it from the browser, the JSON API.
 */
function recordRequestPosts(page: Page): Request[] {
  const posts: Request[] = [];
  page.on('request', (r) => {
    if (isActionCall(r, 'draftKey') || (r.method() === 'POST' && REQUESTS_API.test(new URL(r.url()).pathname))) posts.push(r);
  });
  return posts;
}

test('creates a team from the catalog after the catalog fails once and Retry', async ({ page, api }) => {
  await createAgent(api, 'Researcher', 'Finds sources');
  // Without the Team group (an empty list, Researcher's, admits it): the form names these two.
  await createAgent(api, 'Reviewer', 'Checks drafts', ['utility']);
  await createAgent(api, 'Writer', 'Drafts text', ['utility']);
  await page.route(
    /\/api\/v1\/agents(\?|$)/,
    (route) => route.fulfill({ status: 500, json: { error: { code: 'unavailable', message: 'Catalog unavailable' } } }),
    { times: 1 },
  );

  await page.goto('/teams/new');
  await expect(page.getByRole('alert').filter({ hasText: 'Couldn’t load your agents' })).toBeVisible(FIRST_LOAD);
  await expect(page.getByRole('checkbox')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create team' })).toBeDisabled();

  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('checkbox')).toHaveCount(3);

  await page.getByLabel('Name', { exact: true }).fill('Launch crew');
  await expect(page.getByText('11 / 80 characters · 11 / 160 bytes')).toBeVisible();
  await page.getByLabel('Goal', { exact: true }).fill('Write the launch note — ✨');
  await expect(page.getByText('25 / 2,000 characters · 29 / 4,000 bytes')).toBeVisible();

  await page.getByLabel('Search your agents by name or description').fill('draft');
  await expect(page.getByRole('checkbox')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'Writer' }).check();
  await expect(page.getByText('1 / 8 selected · at least 2')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create team' })).toBeDisabled();
  // These agents were made without the Team tools: the form says what that means before the team is made.
  await expect(page.getByRole('status').filter({ hasText: 'Writer has no Team tools' })).toBeVisible();
  await page.getByRole('checkbox', { name: 'Reviewer' }).check();
  await expect(page.getByText('2 / 8 selected · at least 2')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Writer, Reviewer have no Team tools' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remove Writer' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remove Reviewer' })).toBeVisible();
  // Researcher's empty list admits every group but Web and Batch, the Team group among them: it goes unnamed.
  await page.getByLabel('Search your agents by name or description').fill('');
  await page.getByRole('checkbox', { name: 'Researcher' }).check();
  await expect(page.getByText('3 / 8 selected · at least 2')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Writer, Reviewer have no Team tools' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Researcher' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Remove Researcher' }).click();

  await page.getByRole('button', { name: 'Create team' }).click();
  await expect(page).toHaveURL(/\/teams\/[^/]+$/, FIRST_LOAD);
  await expect(page.getByRole('heading', { level: 1, name: 'Launch crew' })).toBeVisible(FIRST_LOAD);
  const members = page.getByRole('complementary', { name: 'Members' });
  await expect(members.getByRole('button', { name: 'Mention Writer' })).toBeVisible();
  await expect(members.getByRole('button', { name: 'Mention Reviewer' })).toBeVisible();

  await page.goto('/teams');
  const item = page.getByRole('link', { name: /Launch crew/ });
  await expect(item).toContainText('2 members', FIRST_LOAD);
});

test('mentions with the keyboard and sends to two members at once; both results pair with their requests', async ({
  page,
  api,
}) => {
  const team = await seedTeam(api);
  const posts = recordRequestPosts(page);
  await openTeam(page, team.id);

  const box = composer(page);
  await box.click();
  await box.pressSequentially('@Re');
  const listbox = page.getByRole('listbox', { name: 'Members' });
  await expect(listbox.getByRole('option')).toHaveText([/@Researcher/, /@Reviewer/]);
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await box.press('ArrowDown');
  await expect(listbox.getByRole('option', { name: /@Reviewer/ })).toHaveAttribute('aria-selected', 'true');
  await box.press('ArrowDown'); // wraps to the top
  await expect(listbox.getByRole('option', { name: /@Researcher/ })).toHaveAttribute('aria-selected', 'true');
  await box.press('ArrowUp');
  await box.press('Enter');
  await expect(listbox).toBeHidden();
  await expect(page.getByRole('button', { name: 'Remove recipient Reviewer' })).toBeVisible();
  await expect(box).toHaveValue('');

  await box.pressSequentially('@wri');
  await box.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove recipient Writer' })).toBeVisible();
  // A name typed as plain text routes nothing; Enter without the list open is a newline. The space typed after the
  // picked mention does not open the request.
  await page.keyboard.insertText(' Summarize the plan for Researcher');
  await box.press('Enter');
  await page.keyboard.insertText('second line');
  await expect(box).toHaveValue(' Summarize the plan for Researcher\nsecond line');
  expect(posts).toHaveLength(0);

  await box.press('ControlOrMeta+Enter');
  await expect(box).toHaveValue('');
  expect(posts).toHaveLength(1);
  expect(actionArgs(posts[0]!)).toEqual([
    team.id,
    {
      memberIds: [team.members.find((m) => m.name === 'Reviewer')!.id, team.members.find((m) => m.name === 'Writer')!.id],
      text: 'Summarize the plan for Researcher\nsecond line',
      draftKey: expect.any(String),
    },
  ]);

  const reviewer = card(page, 'You → @Reviewer');
  const writer = card(page, 'You → @Writer');
  await expect(reviewer).toContainText('Reviewer received: Summarize the plan for Researcher', { timeout: RESULT_TIMEOUT });
  await expect(writer).toContainText('Writer received: Summarize the plan for Researcher', { timeout: RESULT_TIMEOUT });
  await expect(reviewer.getByText('Completed')).toBeVisible();
  await expect(writer.getByText('Completed')).toBeVisible();
  await expect(page.getByRole('article', { name: /@Researcher/ })).toHaveCount(0);
});

test('Send without a recipient opens the picker and asks for a member', async ({ page, api }) => {
  const team = await seedTeam(api);
  const posts = recordRequestPosts(page);
  await openTeam(page, team.id);
  await composer(page).fill('Hello team');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Choose at least one member' })).toBeVisible();
  const listbox = page.getByRole('listbox', { name: 'Members' });
  await expect(listbox.getByRole('option')).toHaveCount(3);
  await listbox.getByRole('option', { name: /@Writer/ }).click();
  await expect(page.getByRole('button', { name: 'Remove recipient Writer' })).toBeVisible();
  await expect(composer(page)).toHaveValue('Hello team');
  expect(posts).toHaveLength(0);
});

test('open details and an unsent draft survive live updates', async ({ page, api }) => {
  const team = await seedTeam(api);
  await openTeam(page, team.id);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await composer(page).fill('/sleep 2500\n/reply Slow answer');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const slow = card(page, 'You → @Writer');
  await expect(slow).toBeVisible();
  await slow.getByRole('button', { name: 'Task details' }).click();
  await expect(slow.getByRole('button', { name: 'Task details' })).toHaveAttribute('aria-expanded', 'true');
  await expect(slow.getByRole('link', { name: 'Open conversation' })).toBeVisible();
  await expect(slow.getByRole('button', { name: 'Cancel' })).toBeVisible();
  await composer(page).fill('A draft I have not sent');

  await expect(slow.getByText('Slow answer', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(slow.getByRole('button', { name: 'Task details' })).toHaveAttribute('aria-expanded', 'true');
  await expect(slow.getByRole('link', { name: 'Open conversation' })).toHaveAttribute('href', /^\/conversations\//);
  await expect(slow.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await expect(composer(page)).toHaveValue('A draft I have not sent');
  await expect(page.getByRole('button', { name: 'Remove recipient Writer' })).toHaveCount(0);
});

test('a clarification is answered from the feed; the typed answer survives live updates', async ({ page, api }) => {
  const team = await seedTeam(api);
  const reviewerId = team.members.find((m) => m.name === 'Reviewer')!.id;
  await openTeam(page, team.id);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await composer(page).fill('/ask Which tone should I use?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const asking = card(page, 'You → @Writer');
  await expect(asking.getByText('Which tone should I use?', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  await expect(asking.getByText('Needs input', { exact: true })).toBeVisible();
  const answer = asking.getByRole('textbox', { name: 'Your answer' });
  await answer.fill('Friendly and brief');
  await asking.getByRole('button', { name: 'Task details' }).click();

  // Other work changes the feed (new revisions) while the answer sits typed but unsent.
  const other = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [reviewerId], text: 'Check the intro', draftKey: crypto.randomUUID() },
  });
  expect(other.status(), await other.text()).toBe(201);
  await expect(card(page, 'You → @Reviewer')).toContainText('Reviewer received: Check the intro', { timeout: RESULT_TIMEOUT });
  await expect(answer).toHaveValue('Friendly and brief');
  await expect(asking.getByRole('button', { name: 'Task details' })).toHaveAttribute('aria-expanded', 'true');

  await asking.getByRole('button', { name: 'Send answer' }).click();
  await expect(asking).toContainText('Clarification accepted: Friendly and brief', { timeout: RESULT_TIMEOUT });
  await expect(asking.getByText('Completed', { exact: true })).toBeVisible();
});

test('an over-long task is refused in the browser with the text kept and no request sent', async ({ page, api }) => {
  const team = await seedTeam(api);
  const posts = recordRequestPosts(page);
  await openTeam(page, team.id);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();

  const tooLong = 'a'.repeat(4001);
  await composer(page).fill(tooLong);
  await expect(page.getByText('4,001 / 4,000 characters · 4,001 / 8,000 bytes')).toBeVisible();
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Message is too long' })).toBeVisible();
  await expect(composer(page)).toHaveValue(tooLong);

  const tooManyBytes = '🤖'.repeat(2001); // 2,001 characters but 8,004 bytes
  await composer(page).fill(tooManyBytes);
  await composer(page).press('ControlOrMeta+Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Message is too long' })).toBeVisible();
  await expect(composer(page)).toHaveValue(tooManyBytes);
  expect(posts).toHaveLength(0);

  // Exactly at the limit is sent.
  await composer(page).fill('b'.repeat(4000));
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(composer(page)).toHaveValue('');
  expect(posts).toHaveLength(1);
  await expect(card(page, 'You → @Writer')).toBeVisible();
});

test('works at 390×844 in dark mode without horizontal overflow', async ({ page, api }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  const team = await seedTeam(api, 'A team with a rather long name that has to wrap on a phone');
  const send = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [team.members[0]!.id], text: 'x'.repeat(600), draftKey: crypto.randomUUID() },
  });
  expect(send.status(), await send.text()).toBe(201);

  for (const path of ['/teams', '/teams/new', `/teams/${team.id}`]) {
    await page.goto(path);
    await expect(page.locator('html')).toHaveClass(/dark/);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible(FIRST_LOAD);
    if (path === `/teams/${team.id}`) {
      await expect(page.getByRole('article').first()).toBeVisible(FIRST_LOAD);
      await expect(composer(page)).toBeVisible();
    }
    expect(await horizontalOverflow(page), path).toBe(0);
    expect(await elementsOutsideViewport(page), path).toEqual([]);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');
  }
});
