import type { APIRequestContext } from '@playwright/test';
import crypto from 'node:crypto';
import { expect, test } from './fixtures';

/*
 * The server side of push through the real Next server: a signed-in browser's EventSource (cookie session) hears a
 * request being queued and finished in its team, and a stream is not buffered by the framework. The workspace page
 * itself does not use the stream yet (ADR 020), so this drives EventSource directly.
 */
type Team = { id: string; members: Array<{ id: string }> };

async function seedTeam(api: APIRequestContext): Promise<Team> {
  const agentIds: string[] = [];
  for (const name of ['Pusher', 'Listener']) {
    const res = await api.post('/api/v1/agents', { data: { name, description: 'push test' } });
    expect(res.status(), await res.text()).toBe(201);
    agentIds.push(((await res.json()) as { id: string }).id);
  }
  const res = await api.post('/api/v1/teams', { data: { requestId: crypto.randomUUID(), name: 'Push crew', goal: 'Hear changes', agentIds } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

test('a team event stream announces a queued and a finished request as they happen', async ({ page, api }) => {
  const team = await seedTeam(api);
  await page.goto('/teams');
  await page.evaluate((teamId) => {
    const w = window as unknown as { pushed: Array<{ id: string; data: { revision: number; jobIds: string[] | null } }> };
    w.pushed = [];
    const source = new EventSource(`/api/v1/teams/${teamId}/events`);
    source.addEventListener('team', (e) => w.pushed.push({ id: (e as MessageEvent).lastEventId, data: JSON.parse((e as MessageEvent).data) }));
  }, team.id);
  const pushed = () => page.evaluate(() => (window as unknown as { pushed: Array<{ id: string; data: { revision: number; jobIds: string[] | null } }> }).pushed);
  await expect.poll(async () => (await pushed()).length, { timeout: 5_000 }).toBe(1);

  const send = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [team.members[0]!.id], text: '/reply pushed', draftKey: crypto.randomUUID() },
  });
  expect(send.status(), await send.text()).toBe(201);
  const jobId = ((await send.json()) as { jobs: Array<{ id: string }> }).jobs[0]!.id;
  await expect.poll(async () => (await pushed()).some((m) => m.data.jobIds?.includes(jobId)), { timeout: 5_000 }).toBe(true);
  const first = Number((await pushed())[0]!.id);
  const since = async () =>
    (await (await api.get(`/api/v1/teams/${team.id}/activity?since=${first}`)).json()) as {
      revision: number;
      changed: Array<{ id: string; status: string }>;
      truncated: boolean;
    };
  await expect.poll(async () => (await since()).changed.map((j) => [j.id, j.status]), { timeout: 15_000 }).toEqual([[jobId, 'completed']]);
  // The finishing change was pushed too: the stream reaches the team's revision, with ids rising all the way.
  const { revision } = await since();
  await expect.poll(async () => Number((await pushed()).at(-1)!.id), { timeout: 5_000 }).toBe(revision);
  const ids = (await pushed()).map((m) => Number(m.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
});
