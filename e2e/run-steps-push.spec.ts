/**
 * An open Steps panel follows its run by push (ADR 030): while the run's event stream is up, the panel asks for
 * events only when the stream says there are new ones — no GET of /runs/:id/events on a timer — and a new step
 * still appears; with the stream blocked, it falls back to checking once a second and says so.
 */
import crypto from 'node:crypto';
import type { APIRequestContext, Locator, Page, Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { FIRST_LOAD, RESULT_TIMEOUT, card, createAgent, createTeam, openTeam, sendRequest } from './support/team-flows';

/** Two slow model turns: after "Run started", eight quiet seconds, then the calculator call and its result. */
const SLOW_CALL = ['/sleep 8000', '/call calculator {"expression":"1+2"}', '/reply Sum done'].join('\n');
const EVENTS_READ = /\/api\/v1\/runs\/([^/?]+)\/events(\?|$)/;
const EVENTS_STREAM = /\/api\/v1\/runs\/[^/?]+\/events\/stream$/;

/** Every events read (GET /runs/:id/events?...) and stream request the page makes, with when it was made. */
function recordRunRequests(page: Page) {
  const reads: Array<{ at: number; runId: string }> = [];
  const streams: number[] = [];
  page.on('request', (req: Request) => {
    const path = new URL(req.url()).pathname + (new URL(req.url()).search ? '?' : '');
    const read = EVENTS_READ.exec(path);
    if (req.method() === 'GET' && read) reads.push({ at: Date.now(), runId: decodeURIComponent(read[1]!) });
    if (EVENTS_STREAM.test(new URL(req.url()).pathname)) streams.push(Date.now());
  });
  return { reads, streams };
}

async function openSteps(scope: Locator): Promise<Locator> {
  const button = scope.getByRole('button', { name: 'Steps', exact: true });
  await expect(button).toHaveAttribute('aria-expanded', 'false', { timeout: RESULT_TIMEOUT });
  await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  const list = scope.getByRole('list', { name: 'Run steps' });
  await expect(list.getByText('Run started', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  return list;
}

test('an open Steps panel shows a new step without periodic GETs of /events while its stream is up', async ({ page, api }) => {
  test.setTimeout(60_000);
  const team = await createTeam(api, 'Push steps', [
    { name: 'Calc', description: 'Adds things up' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const seen = recordRunRequests(page);
  await openTeam(page, team.id);
  await sendRequest(api, team, 'Calc', SLOW_CALL);
  const job = card(page, 'You → @Calc');
  const list = await openSteps(job);
  await expect(job.getByText('Live — new steps appear as they happen')).toBeVisible();
  const openedAt = Date.now();

  // The new step arrives while the panel stays open (the model answers after its eight-second sleep).
  await expect(list.getByText('Tool calculator returned', { exact: true })).toBeVisible({ timeout: 15_000 });
  expect(seen.streams.length, 'the panel opened its run stream').toBeGreaterThanOrEqual(1);

  // When did the server write that step? Its model call's own time, from the API.
  const runId = seen.reads[0]!.runId;
  const res = await api.get(`/api/v1/runs/${encodeURIComponent(runId)}/events?after=0&limit=200`);
  const events = ((await res.json()) as { events: Array<{ type: string; at: string }> }).events;
  const modelCallAt = Date.parse(events.find((e) => e.type === 'model.call')!.at);
  expect(modelCallAt - openedAt, 'the quiet stretch is long enough to tell push from polling').toBeGreaterThan(3_000);

  // What must not happen: a read of the run's events while nothing new was written (from a second after the panel
  // was live to just before the step: at least 1.75 s, so polling once a second would have read in it).
  const quiet = seen.reads.filter((r) => r.runId === runId && r.at > openedAt + 1_000 && r.at < modelCallAt - 250);
  expect(quiet.map((r) => new Date(r.at).toISOString())).toEqual([]);
  // ...and reads did follow the step: push, not a stale panel.
  expect(seen.reads.some((r) => r.runId === runId && r.at >= modelCallAt)).toBe(true);
  await expect(list.getByText('Run completed', { exact: true })).toBeVisible({ timeout: 15_000 });
});

test('with its stream blocked, the Steps panel says so and still shows new steps by checking once a second', async ({ page, api }) => {
  test.setTimeout(60_000);
  // Only run streams are refused (the workspace's own stream stays up): the panel must fall back on its own.
  await page.route(EVENTS_STREAM, (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  const team = await createTeam(api, 'Blocked steps', [
    { name: 'Calc', description: 'Adds things up' },
    { name: 'Helper', description: 'Stands by' },
  ]);
  const seen = recordRunRequests(page);
  await openTeam(page, team.id);
  await sendRequest(api, team, 'Calc', SLOW_CALL);
  const job = card(page, 'You → @Calc');
  const list = await openSteps(job);
  await expect(job.getByText('Reconnecting — checking every 1 s')).toBeVisible({ timeout: 5_000 });
  const downAt = Date.now();
  await expect(list.getByText('Tool calculator returned', { exact: true })).toBeVisible({ timeout: 15_000 });
  const runId = seen.reads[0]!.runId;
  // The fallback is a timer: several reads in the quiet stretch while the model sleeps.
  const reads = seen.reads.filter((r) => r.runId === runId && r.at > downAt);
  expect(reads.length).toBeGreaterThanOrEqual(3);
  expect(seen.streams.length, 'the panel kept trying its stream').toBeGreaterThanOrEqual(1);
});

test('a delegated child’s progress reaches the open parent panel by push, with no timed re-read of its children', async ({ page, api }) => {
  test.setTimeout(60_000);
  const lead = await createAgent(api, { name: 'Lead', description: 'Splits the work' });
  const created = await api.post('/api/v1/conversations', { data: { agentId: lead.id } });
  expect(created.status(), await created.text()).toBe(201);
  const conversationId = ((await created.json()) as { id: string }).id;
  const childReads: number[] = [];
  page.on('request', (req) => {
    if (req.method() === 'GET' && /\/api\/v1\/runs\/[^/]+\/children$/.test(new URL(req.url()).pathname)) childReads.push(Date.now());
  });
  await page.goto(`/conversations/${conversationId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Lead' })).toBeVisible(FIRST_LOAD);

  // The child sleeps eight seconds before answering: its parent waits in the `task` call meanwhile. Eight, not five:
  // under load the panel may show the child Running seconds late, and the quiet stretch must still be long.
  const prompt = `/call task ${JSON.stringify({ description: 'Slow child', prompt: '/sleep 8000\n/reply Child done' })}`;
  const sent = await api.post(`/api/v1/conversations/${conversationId}/messages`, { data: { text: prompt, idempotencyKey: crypto.randomUUID() } });
  expect(sent.status(), await sent.text()).toBe(202);
  const turn = page.getByRole('log', { name: 'Conversation history' }).getByRole('listitem').filter({ hasText: 'Slow child' }).first();
  const button = turn.getByRole('button', { name: 'Steps', exact: true });
  await button.click();
  const child = turn.getByRole('list', { name: 'Run steps' }).getByRole('region', { name: 'Child: Slow child' });
  await expect(child.getByText('Running', { exact: true })).toBeVisible({ timeout: RESULT_TIMEOUT });
  const quietFrom = Date.now() + 1_000;
  await expect(child.getByText('Completed', { exact: true })).toBeVisible({ timeout: 15_000 });

  // The child's first change after it started is its model call, written when the eight-second sleep ends: the
  // server's own record says when. (Its end follows; under load, seconds may pass between the two.)
  const parentRunId = await runIdOfTurn(api, conversationId);
  const childRunId = await childRunIdOf(api, parentRunId);
  const modelCallAt = await firstModelCallAt(api, childRunId);
  const window = modelCallAt - 250 - quietFrom;
  expect(window, 'the quiet stretch is long enough to tell push from polling').toBeGreaterThan(1_200);
  // What must not happen: the children re-read on a timer while the child sleeps (a 1 s timer would read in any
  // window over a second). Reads that follow the child's changes are push and are expected.
  expect(childReads.filter((at) => at > quietFrom && at < modelCallAt - 250).map((at) => new Date(at).toISOString())).toEqual([]);
  expect(childReads.some((at) => at >= modelCallAt - 250), 'the child’s progress was read when it came').toBe(true);
});

async function runIdOfTurn(api: APIRequestContext, conversationId: string): Promise<string> {
  const res = await api.get(`/api/v1/conversations/${conversationId}`);
  expect(res.status(), await res.text()).toBe(200);
  const run = ((await res.json()) as { run: { id: string } | null }).run;
  expect(run, 'the conversation has its turn').not.toBeNull();
  return run!.id;
}

async function childRunIdOf(api: APIRequestContext, parentRunId: string): Promise<string> {
  const res = await api.get(`/api/v1/runs/${encodeURIComponent(parentRunId)}/children`);
  expect(res.status(), await res.text()).toBe(200);
  const children = ((await res.json()) as { children: Array<{ childRunId: string | null }> }).children;
  expect(children).toHaveLength(1);
  return children[0]!.childRunId!;
}

async function firstModelCallAt(api: APIRequestContext, runId: string): Promise<number> {
  const res = await api.get(`/api/v1/runs/${encodeURIComponent(runId)}/events?after=0&limit=200`);
  expect(res.status(), await res.text()).toBe(200);
  const events = ((await res.json()) as { events: Array<{ type: string; at: string }> }).events;
  const call = events.find((e) => e.type === 'model.call');
  expect(call, 'the child made a model call').toBeDefined();
  return Date.parse(call!.at);
}
