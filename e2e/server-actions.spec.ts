import type { APIRequestContext, Page, Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { actionArgs, recordActionCalls } from './support/server-actions';
import { RESULT_TIMEOUT, card, composer, createTeam, member, openTeam, type Team } from './support/team-flows';

// Runs go through the real scheduler on a busy two-core machine; every single wait stays in seconds.
test.describe.configure({ timeout: 60_000 });

/** Writes the page sends to the JSON API (which stays for scripts with tokens): the browser should send none. */
function recordApiWrites(page: Page): Request[] {
  const writes: Request[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/api/v1/')) writes.push(r);
  });
  return writes;
}

const requestCount = async (api: APIRequestContext, team: Team) => {
  const res = await api.get(`/api/v1/teams/${team.id}/activity?limit=200`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { totalJobs: number }).totalJobs;
};

test('a team request from the composer goes through a server action, not the JSON API, and its job appears', async ({ page, api }) => {
  const team = await createTeam(api, 'Door crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  const apiWrites = recordApiWrites(page);
  const sends = recordActionCalls(page, 'draftKey');
  await openTeam(page, team.id);

  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await composer(page).fill('/reply Drafted through the door');
  await composer(page).press('ControlOrMeta+Enter');
  await expect(composer(page)).toHaveValue('');

  const job = card(page, 'You → @Writer');
  await expect(job).toContainText('Drafted through the door', { timeout: RESULT_TIMEOUT });
  await expect(job.getByText('Completed', { exact: true })).toBeVisible();
  expect(sends).toHaveLength(1);
  expect(actionArgs(sends[0]!)).toEqual([team.id, { memberIds: [member(team, 'Writer').id], text: '/reply Drafted through the door', draftKey: expect.any(String) }]);
  expect((await sends[0]!.response())?.status()).toBe(200);
  expect(apiWrites.map((r) => `${r.method()} ${new URL(r.url()).pathname}`)).toEqual([]);
  expect(await requestCount(api, team)).toBe(1);
});

test('the same server action replayed from another origin is refused by Next and queues nothing', async ({ page, api }) => {
  const team = await createTeam(api, 'Origin crew', [{ name: 'Writer' }, { name: 'Reviewer' }]);
  const sends = recordActionCalls(page, 'draftKey');
  await openTeam(page, team.id);
  await page.getByRole('complementary', { name: 'Members' }).getByRole('button', { name: 'Mention Writer' }).click();
  await composer(page).fill('/reply first');
  await composer(page).press('ControlOrMeta+Enter');
  await expect(card(page, 'You → @Writer')).toBeVisible({ timeout: RESULT_TIMEOUT });
  expect(sends).toHaveLength(1);
  expect(await requestCount(api, team)).toBe(1);

  // Replay the browser's own call with this session's cookies (page.request shares them) and a fresh draftKey.
  const sent = sends[0]!;
  const headers = await sent.allHeaders();
  const replay = (origin: string, draftKey: string) => {
    const body = JSON.stringify([team.id, { memberIds: [member(team, 'Writer').id], text: '/reply replayed', draftKey }]);
    const forwarded = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith(':') && k !== 'cookie' && k !== 'content-length'));
    return page.request.post(sent.url(), { headers: { ...forwarded, origin }, data: body, failOnStatusCode: false, maxRedirects: 0 });
  };

  const foreign = await replay('https://evil.example', 'replay-foreign');
  expect(foreign.status(), await foreign.text()).not.toBe(200);
  expect(await requestCount(api, team)).toBe(1);

  // The same replay from the app's own origin is accepted: the Origin alone made the difference.
  const own = await replay(new URL(sent.url()).origin, 'replay-own');
  expect(own.status()).toBe(200);
  expect(await requestCount(api, team)).toBe(2);
});
