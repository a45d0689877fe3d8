/**
 * Team set-up and page helpers for the collaboration and human-input specs: agents and teams are created through
 * the HTTP API (the `api` fixture), work is sent either through the API or the page, and the page is watched for
 * anything untrusted text must never cause (dialogs, injected images).
 */
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import crypto from 'node:crypto';

/** Agent runs go through the real scheduler and the embedded `scripted` model: results take a few seconds under load. */
export const RESULT_TIMEOUT = 10_000;
/** Pages render on the server with their first data; "Live" needs hydration and the stream's first message. */
export const FIRST_LOAD = { timeout: 10_000 };

/**
 * The team page (or its Runs page) is hydrated and hears its stream: "Live" replaces the server's "Connecting…" only
 * then. Wait for it before using a control: a click or a choice made on the server's HTML before hydration is lost
 * (on a saturated machine that window lasts seconds), and the test would then wait for what never comes.
 */
export async function expectLive(page: Page) {
  await expect(page.getByRole('status').filter({ hasText: /^Live$/ })).toBeVisible(FIRST_LOAD);
}

export type TeamAgent = { id: string; name: string };
export type TeamMember = { id: string; name: string; conversationId: string | null };
export type Team = { id: string; name: string; members: TeamMember[] };
export type StateEntry = {
  id: string;
  kind: string;
  title: string;
  content: string;
  status: 'active' | 'archived';
  revision: number;
  createdBy: { memberId: string; name: string };
  updatedBy: { memberId: string; name: string };
};

export async function createAgent(
  api: APIRequestContext,
  /** instructions: the owner's own text; the scripted model acts on its directive lines for every request. */
  agent: { name: string; description?: string; instructions?: string; approvalTools?: string[]; toolGroups?: string[] },
): Promise<TeamAgent> {
  const res = await api.post('/api/v1/agents', { data: agent });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as TeamAgent;
}

/** A ready team of the given agents (created in order, so members keep these names). */
export async function createTeam(
  api: APIRequestContext,
  name: string,
  agents: Array<Parameters<typeof createAgent>[1]>,
): Promise<Team> {
  const created: TeamAgent[] = [];
  for (const agent of agents) created.push(await createAgent(api, agent));
  const res = await api.post('/api/v1/teams', {
    data: { requestId: crypto.randomUUID(), name, goal: 'Prepare the cost review', agentIds: created.map((a) => a.id) },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Team;
}

export function member(team: Team, name: string): TeamMember {
  const found = team.members.find((m) => m.name === name);
  expect(found, `team ${team.name} has no member ${name}`).toBeTruthy();
  return found!;
}

/** Queue a request from the person to one member; returns the new job's id. */
export async function sendRequest(api: APIRequestContext, team: Team, memberName: string, text: string): Promise<string> {
  const res = await api.post(`/api/v1/teams/${team.id}/requests`, {
    data: { memberIds: [member(team, memberName).id], text, draftKey: crypto.randomUUID() },
  });
  expect(res.status(), await res.text()).toBe(201);
  const body = (await res.json()) as { jobs: Array<{ id: string }> };
  expect(body.jobs).toHaveLength(1);
  return body.jobs[0]!.id;
}

export async function teamState(api: APIRequestContext, teamId: string): Promise<{ revision: number; entries: StateEntry[] }> {
  const res = await api.get(`/api/v1/teams/${teamId}/state`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as { revision: number; entries: StateEntry[] };
}

/** Open a team page and wait until its live feed is connected. */
export async function openTeam(page: Page, teamId: string): Promise<void> {
  await page.goto(`/teams/${teamId}`);
  await expect(page.getByRole('status').filter({ hasText: /^Live$/ })).toBeVisible(FIRST_LOAD);
}

export const composer = (page: Page) => page.getByRole('combobox', { name: 'Message to team' });
/** A feed card by its exact headline, e.g. "Research → @Review". */
export const card = (page: Page, headline: string) => page.getByRole('article', { name: headline, exact: true });
export const statePanel = (page: Page) => page.getByRole('region', { name: 'Team state' });
/** A state entry card in the panel by its title. */
export const stateEntry = (page: Page, title: string) => statePanel(page).getByRole('article', { name: title, exact: true });

/** Marks the current document, so a later check can prove the page was updated in place rather than reloaded. */
export async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  const mark = crypto.randomUUID();
  await page.evaluate((m) => {
    (window as unknown as { __e2eMark?: string }).__e2eMark = m;
  }, mark);
  return () => page.evaluate((m) => (window as unknown as { __e2eMark?: string }).__e2eMark === m, mark);
}

/** Every dialog (alert, confirm, prompt) the page opens: untrusted text must never open one. */
export function recordDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return dialogs;
}

/** Open a card's closed "Task details" and press its Cancel button. */
export async function cancelFromCard(job: Locator): Promise<void> {
  const details = job.getByRole('button', { name: 'Task details' });
  await expect(details).toHaveAttribute('aria-expanded', 'false');
  await details.click();
  await job.getByRole('button', { name: 'Cancel', exact: true }).click();
}
