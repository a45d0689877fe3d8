import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { ToolMessage } from '@langchain/core/messages';
import { LIMITS } from '@/lib/limits';
import { utf8Bytes } from '@/lib/text-bounds';
import type { ApiStateEntry } from '@/lib/types/team';
import { getDb, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import type { Job } from '@/server/db/schema';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { buildSharedContext } from '@/server/teams/context';
import { createTeam } from '@/server/teams/teams';
import { allEntries, projectionBytes, stateContextBytes } from '@/server/teams/state';
import { registerTeamTools } from '@/server/teams/tools/register';
import { NOT_A_MEMBER } from '@/server/teams/tools/caller';
import { createConversation, start, wait } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { GET } from '@/app/api/v1/teams/[id]/state/route';
import { makeUser } from '../support/users';
import { makeAgents, makeTeam } from '../support/teams';
import { until } from '../support/wait';

/*
 * Every tool call here goes through the real path: a team request → the scheduler admits it → the member's
 * graph runs the scripted model, whose `/call` lines become tool calls that ToolNode dispatches.
 */

const db = () => getDb();
const jobRow = async (id: string) => (await db().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const teamRow = async (id: string) => (await db().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const rowCount = async (teamId: string) => (await statement('select count(*) as n from state_entries where team_id = ?').get(teamId) as { n: number }).n;
const call = (tool: string, args: object) => `/call ${tool} ${JSON.stringify(args)}`;

/** What a refused write must leave untouched (the team's activity revision moves with the job itself). */
const snapshot = async (teamId: string) => ({ rows: await rowCount(teamId), stateRevision: (await teamRow(teamId)).stateRevision, entries: JSON.stringify(await allEntries(teamId)) });

type ToolResult = { name: string; status: string; content: string; json: () => Record<string, unknown> };

/** The tool messages of one run of a conversation, in order. */
async function toolResultsOf(conversationId: string, match: (kwargs: Record<string, unknown>) => boolean): Promise<ToolResult[]> {
  const { messages } = await readThread(conversationId);
  const start = messages.findIndex((m) => m.getType() === 'human' && match((m.additional_kwargs.ensemble ?? {}) as Record<string, unknown>));
  expect(start).toBeGreaterThanOrEqual(0);
  const out: ToolResult[] = [];
  for (const m of messages.slice(start + 1)) {
    if (m.getType() === 'human') break;
    if (m.getType() !== 'tool') continue;
    const content = String(m.content);
    out.push({ name: m.name ?? '', status: (m as ToolMessage).status ?? 'success', content, json: () => JSON.parse(content) as Record<string, unknown> });
  }
  return out;
}

type Member = { id: string; name: string; conversationId: string | null };

/** Send a request to one member and wait until it finished; returns the job and its tool results. */
async function run(ownerId: string, teamId: string, member: Member, lines: string[]): Promise<{ job: Job; results: ToolResult[] }> {
  const sent = (await sendRequest(ownerId, teamId, { memberIds: [member.id], text: lines.join('\n'), draftKey: crypto.randomUUID() })).jobs[0]!;
  const job = await until(async () => ['completed', 'failed', 'cancelled', 'waiting_input'].includes((await jobRow(sent.id)).status) && await jobRow(sent.id), 15_000, `job ${sent.id}`);
  expect(job.status).toBe('completed');
  return { job, results: await toolResultsOf(member.conversationId!, (k) => k.jobId === job.id) };
}

const ok = (r: ToolResult | undefined) => {
  expect(r?.status, r?.content).toBe('success');
  return r!.json();
};
const refused = (r: ToolResult | undefined, message: RegExp) => {
  expect(r?.status).toBe('error');
  expect(r?.content).toMatch(message);
};

const publish = (request_id: string, title = 'Cost review', content = 'Research gathers quotes', kind = 'plan') =>
  call('publish_team_state', { request_id, kind, title, content });
const update = (entry_id: string, expected_revision: number, content: string, status = 'active', title = 'Cost review') =>
  call('update_team_state', { entry_id, expected_revision, title, content, status });

beforeAll(() => {
  registerTeamTools();
  startScheduler(teamJobs, { tickMs: 50 });
});
afterAll(async () => {
  await stopScheduler();
});

async function setup(names = ['Research', 'Review']) {
  const user = await makeUser('owner');
  const { team, agents } = await makeTeam(user.id, names);
  return { user, team, agents, members: team.members as Member[] };
}

describe('publish_team_state through ToolNode', () => {
  it('publishes with the caller as author and the executing job as source; a retry returns the same entry', async () => {
    const { user, team, members } = await setup();
    const [research] = members;
    const first = await run(user.id, team.id, research!, [publish('p1')]);
    expect(first.job.result).toContain('[publish_team_state] {"entry":');
    const result = ok(first.results[0]) as { entry: ApiStateEntry; revision: number };
    expect(result.revision).toBe(1);
    expect(result.entry).toMatchObject({
      kind: 'plan',
      title: 'Cost review',
      content: 'Research gathers quotes',
      status: 'active',
      revision: 1,
      createdBy: { memberId: research!.id, name: research!.name },
      updatedBy: { memberId: research!.id, name: research!.name },
      source: { conversationId: research!.conversationId, jobId: first.job.id },
    });
    const stored = await db().select().from(schema.stateEntries).where(eq(schema.stateEntries.teamId, team.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: result.entry.id, publicationKey: `${research!.conversationId}:p1`, sourceJobId: first.job.id });
    expect((await teamRow(team.id)).stateRevision).toBe(1);

    // The same request id again (a retry): the same entry, nothing new written.
    const before = await snapshot(team.id);
    const retry = await run(user.id, team.id, research!, [publish('p1')]);
    expect(ok(retry.results[0])).toEqual(result);
    expect(await snapshot(team.id)).toEqual(before);

    // The same request id with different original content is refused and writes nothing.
    const reuse = await run(user.id, team.id, research!, [publish('p1', 'Cost review', 'Something else'), publish('p1', 'Other title')]);
    refused(reuse.results[0], /request_id "p1" was already used for a different publication/);
    refused(reuse.results[1], /already used/);
    expect(await snapshot(team.id)).toEqual(before);
  });

  it('a publish retry after an update returns the current entry without undoing the update', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const { entry } = ok((await run(user.id, team.id, research!, [publish('p1')])).results[0]) as { entry: ApiStateEntry };
    ok((await run(user.id, team.id, review!, [update(entry.id, 1, 'Include annual operating costs.')])).results[0]);
    const retry = await run(user.id, team.id, research!, [publish('p1')]);
    const current = ok(retry.results[0]) as { entry: ApiStateEntry; revision: number };
    expect(current.entry).toMatchObject({ id: entry.id, revision: 2, content: 'Include annual operating costs.', updatedBy: { memberId: review!.id } });
    expect(current.revision).toBe(2);
    expect(await allEntries(team.id)).toEqual([current.entry]);
  });

  it('refuses the 21st entry (archived ones count) with advice to reuse entries', async () => {
    const { user, team, members } = await setup();
    const lines = Array.from({ length: LIMITS.publicState.entries + 1 }, (_, i) => publish(`e${i}`, `Entry ${i}`, `Finding ${i}`, 'finding'));
    // Two requests: one tool called 20 times in a row within one run is what the loop guard stops (LIMITS.guards.loop).
    const half = Math.ceil(lines.length / 2);
    const results = [...(await run(user.id, team.id, members[0]!, lines.slice(0, half))).results, ...(await run(user.id, team.id, members[0]!, lines.slice(half))).results];
    expect(results).toHaveLength(21);
    results.slice(0, 20).forEach((r) => ok(r));
    refused(results[20], /Team state is full: 20 entries, archived ones included.*Reuse an existing entry with update_team_state, or shorten existing entries/);
    expect(await rowCount(team.id)).toBe(20);
    expect((await teamRow(team.id)).stateRevision).toBe(20);

    // Archiving does not free the slot.
    const first = (await allEntries(team.id))[0]!;
    const again = await run(user.id, team.id, members[1]!, [update(first.id, 1, first.content, 'archived', first.title), publish('late', 'Late', 'x')]);
    expect(ok(again.results[0])).toMatchObject({ updated: true, entry: { status: 'archived' } });
    refused(again.results[1], /Team state is full/);
    expect(await rowCount(team.id)).toBe(20);
  });

  describe('title and content bounds, exactly at the limit and one past', () => {
    const cases = {
      title: [
        ['ASCII', 'a'.repeat(80), 'a'.repeat(81)],
        ['CJK', '東'.repeat(53) + 'a', '東'.repeat(54)], // 160 vs 162 bytes
        ['emoji', '😀'.repeat(40), '😀'.repeat(40) + 'a'], // 160 vs 161 bytes
      ],
      content: [
        ['ASCII', 'a'.repeat(1_000), 'a'.repeat(1_001)],
        ['CJK', '東'.repeat(666) + 'ab', '東'.repeat(666) + 'abc'], // 2,000 vs 2,001 bytes
        ['emoji', '😀'.repeat(500), '😀'.repeat(500) + 'a'], // 2,000 vs 2,001 bytes
      ],
    } as const;

    it('titles', async () => {
      const { user, team, members } = await setup();
      const lines = cases.title.flatMap(([label, atLimit, past]) => [publish(`ok-${label}`, atLimit, 'c'), publish(`past-${label}`, past, 'c')]);
      const { results } = await run(user.id, team.id, members[0]!, lines);
      cases.title.forEach(([, atLimit], i) => {
        expect((ok(results[2 * i]) as { entry: ApiStateEntry }).entry.title).toBe(atLimit);
        refused(results[2 * i + 1], /title is too long: at most 80 characters and 160 UTF-8 bytes/);
      });
      expect((await allEntries(team.id)).map((e) => e.title)).toEqual(cases.title.map(([, atLimit]) => atLimit));
    });

    it.each(cases.content.map((c) => [...c]))('content in %s', async (label, atLimit, past) => {
      const { user, team, members } = await setup();
      const { results } = await run(user.id, team.id, members[0]!, [publish(`ok-${label}`, 'T', atLimit), publish(`past-${label}`, 'T', past)]);
      expect((ok(results[0]) as { entry: ApiStateEntry }).entry.content).toBe(atLimit);
      refused(results[1], /content is too long: at most 1,000 characters and 2,000 UTF-8 bytes/);
      expect(await rowCount(team.id)).toBe(1);
      // An update past the bound is refused too, and leaves the entry as it was.
      const entry = (await allEntries(team.id))[0]!;
      const before = await snapshot(team.id);
      const upd = await run(user.id, team.id, members[1]!, [update(entry.id, 1, past, 'active', 'T')]);
      refused(upd.results[0], /content is too long/);
      expect(await snapshot(team.id)).toEqual(before);
    });
  });
});

describe('update_team_state through ToolNode', () => {
  it('updates, conflicts on a stale revision, accepts an identical retry of the latest update and refuses older retries', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const { entry } = ok((await run(user.id, team.id, research!, [publish('p1')])).results[0]) as { entry: ApiStateEntry };

    const first = await run(user.id, team.id, review!, [update(entry.id, 1, 'Include annual operating costs.')]);
    const updated = ok(first.results[0]) as { updated: boolean; entry: ApiStateEntry };
    expect(updated).toEqual({
      updated: true,
      entry: expect.objectContaining({
        id: entry.id,
        kind: 'plan',
        revision: 2,
        content: 'Include annual operating costs.',
        createdBy: { memberId: research!.id, name: research!.name },
        updatedBy: { memberId: review!.id, name: review!.name },
        source: { conversationId: review!.conversationId, jobId: first.job.id },
      }),
    });
    expect((await teamRow(team.id)).stateRevision).toBe(2);

    // Stale expected_revision: a conflict with the current entry; nothing written.
    const before = await snapshot(team.id);
    const stale = await run(user.id, team.id, research!, [update(entry.id, 1, 'My own idea')]);
    expect(ok(stale.results[0])).toEqual({ updated: false, conflict: true, entry: updated.entry });
    expect(await snapshot(team.id)).toEqual(before);

    // An identical retry of the latest update (from any member): success without a new revision.
    const retry = await run(user.id, team.id, review!, [update(entry.id, 1, 'Include annual operating costs.')]);
    expect(ok(retry.results[0])).toEqual({ updated: true, entry: updated.entry });
    expect(await snapshot(team.id)).toEqual(before);

    // After another edit the first update is an older retry: it conflicts instead of undoing the edit.
    const second = await run(user.id, team.id, research!, [update(entry.id, 2, 'Quotes and annual costs.')]);
    expect(ok(second.results[0])).toMatchObject({ updated: true, entry: { revision: 3, updatedBy: { memberId: research!.id } } });
    const older = await run(user.id, team.id, review!, [update(entry.id, 1, 'Include annual operating costs.')]);
    expect(ok(older.results[0])).toMatchObject({ updated: false, conflict: true, entry: { revision: 3, content: 'Quotes and annual costs.' } });
    expect((await allEntries(team.id))[0]).toMatchObject({ revision: 3, content: 'Quotes and annual costs.', kind: 'plan' });
    expect((await teamRow(team.id)).stateRevision).toBe(3);

    // The API shows the same entry with its authors.
    const res = await GET(new Request(`http://localhost/api/v1/teams/${team.id}/state`, { headers: user.auth }), { params: Promise.resolve({ id: team.id }) });
    const body = await res.json();
    expect(body).toEqual({ revision: 3, entries: await allEntries(team.id) });
    expect(body.entries[0].createdBy).toEqual({ memberId: research!.id, name: research!.name });
    expect(body.entries[0].updatedBy).toEqual({ memberId: research!.id, name: research!.name });
    expect(body.entries[0].source).toEqual({ conversationId: research!.conversationId, jobId: second.job.id });
  });

  it('two members updating with the same expected revision at once: exactly one succeeds', async () => {
    const { user, team, members } = await setup(['A', 'B', 'C']);
    const { entry } = ok((await run(user.id, team.id, members[0]!, [publish('p1')])).results[0]) as { entry: ApiStateEntry };
    // Both runs wait a little before their tool call so the calls overlap.
    const outcomes = await Promise.all(
      members.slice(1).map((m) => run(user.id, team.id, m, ['/sleep 150', update(entry.id, 1, `Edited by ${m.name}`)])),
    );
    const results = outcomes.map((o) => ok(o.results[0]) as { updated: boolean; conflict?: boolean; entry: ApiStateEntry });
    const winners = results.filter((r) => r.updated);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.updated && r.conflict)).toHaveLength(1);
    expect((await allEntries(team.id))[0]).toMatchObject({ revision: 2, content: winners[0]!.entry.content });
    expect((await teamRow(team.id)).stateRevision).toBe(2);
  });

  it('archiving removes an entry from the shared context but read_team_state include_archived finds it', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const pub = await run(user.id, team.id, research!, [publish('p1', 'Vendor quotes', 'Three quotes, ACME cheapest', 'finding'), publish('p2', 'Budget', 'Under 10k', 'requirement')]);
    const a = (ok(pub.results[0]) as { entry: ApiStateEntry }).entry;
    const b = (ok(pub.results[1]) as { entry: ApiStateEntry }).entry;
    expect((await buildSharedContext(team.id)).state.map((s) => s.id)).toEqual([a.id, b.id]);

    const reads = await run(user.id, team.id, review!, [
      update(a.id, 1, 'Three quotes, ACME cheapest', 'archived', 'Vendor quotes'),
      call('read_team_state', { query: 'acme' }),
      call('read_team_state', { query: 'ACME', include_archived: true }),
      call('read_team_state', { kind: 'requirement' }),
      call('read_team_state', { entry_id: b.id }),
      call('read_team_state', { query: '%' }),
      call('read_team_state', {}),
    ]);
    expect(ok(reads.results[0])).toMatchObject({ updated: true, entry: { status: 'archived', revision: 2 } });
    const ids = (r: ToolResult | undefined) => (ok(r) as { entries: ApiStateEntry[] }).entries.map((e) => e.id);
    expect(ids(reads.results[1])).toEqual([]);
    expect(ids(reads.results[2])).toEqual([a.id]);
    expect(ids(reads.results[3])).toEqual([b.id]);
    expect(ids(reads.results[4])).toEqual([b.id]);
    expect(ids(reads.results[5])).toEqual([]);
    expect(ok(reads.results[6])).toEqual({ revision: 3, entries: [(await allEntries(team.id))[1]] });

    expect((await buildSharedContext(team.id)).state.map((s) => s.id)).toEqual([b.id]);
    expect(await rowCount(team.id)).toBe(2);
  });
});

/** A new entry's projected size, written by `member` from a team request (its job id is a UUID too). */
function projectedEntryBytes(member: Member, fields: { kind: ApiStateEntry['kind']; title: string; content: string }) {
  const fake: ApiStateEntry = {
    id: crypto.randomUUID(),
    ...fields,
    status: 'active',
    revision: 1,
    createdBy: { memberId: member.id, name: member.name },
    updatedBy: { memberId: member.id, name: member.name },
    source: { conversationId: member.conversationId, jobId: crypto.randomUUID() },
    updatedAt: new Date().toISOString(),
  };
  return utf8Bytes(JSON.stringify(fake));
}

/** Control characters take 6 bytes once JSON-escaped (\u0001): pad to an exact byte count with them and ASCII. */
const padTo = (bytes: number) => '\u0001'.repeat(Math.floor(bytes / 6)) + 'a'.repeat(bytes % 6);
// Quotes, backslashes and newlines take two bytes each once JSON-escaped, emoji four: 1,000 raw bytes, 1,900 escaped.
const heavy = '"\\\n'.repeat(300) + '😀'.repeat(25);

describe('byte budgets through ToolNode (escaping counted; refusals roll back completely)', () => {
  it('the 16,000-byte projection: exactly at the limit is accepted, one byte more refused', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const limit = LIMITS.publicState.projectionBytes;
    // Two heavy publications per request (the task text stays under its own bound).
    for (let i = 0; ; i += 2) {
      const next = (k: number) => projectedEntryBytes(research!, { kind: 'finding', title: `F${k}`, content: heavy }) + 1;
      if (projectionBytes(await allEntries(team.id)) + next(i) + next(i + 1) > limit - 1_000) break;
      const { results } = await run(user.id, team.id, research!, [publish(`f${i}`, `F${i}`, heavy, 'finding'), publish(`f${i + 1}`, `F${i + 1}`, heavy, 'finding')]);
      results.forEach((r) => ok(r));
    }
    expect(await rowCount(team.id)).toBeGreaterThanOrEqual(4);

    const pad = limit - projectionBytes(await allEntries(team.id)) - 1 - projectedEntryBytes(review!, { kind: 'plan', title: 'Last', content: '' });
    expect(pad).toBeGreaterThan(500);
    const exact = padTo(pad);
    const before = await snapshot(team.id);
    const { results } = await run(user.id, team.id, review!, [publish('over', 'Last', `${exact}a`), publish('exact', 'Last', exact)]);
    refused(results[0], /Team state would take 16,001 bytes, over its 16,000-byte budget.*Shorten or reuse existing entries/);
    expect((ok(results[1]) as { entry: ApiStateEntry }).entry.content).toBe(exact);
    expect(projectionBytes(await allEntries(team.id))).toBe(limit);
    expect(await rowCount(team.id)).toBe(before.rows + 1);
    expect((await teamRow(team.id)).stateRevision).toBe(before.stateRevision + 1);

    // Full: any growth is refused, updates included, and nothing changes.
    const full = await snapshot(team.id);
    const first = (await allEntries(team.id))[0]!;
    const more = await run(user.id, team.id, research!, [publish('more', 'M', ''), update(first.id, 1, `${first.content}!`, 'active', first.title)]);
    refused(more.results[0], /16,000-byte budget/);
    refused(more.results[1], /16,000-byte budget/);
    expect(await snapshot(team.id)).toEqual(full);
  });

  it('the 24,000-byte shared context: exactly at the limit is accepted, one byte more refused', async () => {
    const user = await makeUser('big');
    const agents = await makeAgents(user.id, ['Alpha', 'Beta'].map((n) => `${n}-${crypto.randomUUID().slice(0, 6)}`));
    // Under 2,000 characters, but control characters take 6 bytes each once JSON-escaped: a 12,000-byte goal.
    const goal = `Goal ${'\u0001'.repeat(1_990)} end`;
    const { team } = await createTeam(user.id, { requestId: 'big', name: 'Big', goal, agentIds: agents.map((a) => a.id) });
    const [alpha, beta] = team.members as Member[];
    const limit = LIMITS.sharedContext.maxBytes;
    const contextEntryBytes = (title: string, text: string) => utf8Bytes(JSON.stringify({ id: crypto.randomUUID(), kind: 'plan', title, content: text, revision: 1 })) + 1;

    for (let i = 0; ; i += 2) {
      if (await stateContextBytes(team.id) + contextEntryBytes(`F${i}`, heavy) + contextEntryBytes(`F${i + 1}`, heavy) > limit - 1_000) break;
      const { results } = await run(user.id, team.id, alpha!, [publish(`f${i}`, `F${i}`, heavy), publish(`f${i + 1}`, `F${i + 1}`, heavy)]);
      results.forEach((r) => ok(r));
    }
    // The projection is still well within its own budget: the context bound is the one that bites.
    expect(projectionBytes(await allEntries(team.id))).toBeLessThan(LIMITS.publicState.projectionBytes - 2_500);

    const pad = limit - await stateContextBytes(team.id) - contextEntryBytes('Last', '');
    expect(pad).toBeGreaterThan(500);
    const exact = padTo(pad);
    const before = await snapshot(team.id);
    const { results } = await run(user.id, team.id, beta!, [publish('over', 'Last', `${exact}a`), publish('exact', 'Last', exact)]);
    refused(results[0], /shared context \(goal, roster and active state\) would take 24,001 bytes, over its 24,000-byte budget/);
    ok(results[1]);
    expect(await stateContextBytes(team.id)).toBe(limit);
    expect(await rowCount(team.id)).toBe(before.rows + 1);

    // Full: refused and nothing written; archiving an entry makes room again.
    const full = await snapshot(team.id);
    const first = (await allEntries(team.id))[0]!;
    const after = await run(user.id, team.id, beta!, [publish('more', 'More', 'x'), update(first.id, 1, first.content, 'archived', first.title), publish('more', 'More', 'x')]);
    refused(after.results[0], /24,000-byte budget/);
    ok(after.results[1]);
    expect((ok(after.results[2]) as { entry: ApiStateEntry }).entry.status).toBe('active');
    expect(await rowCount(team.id)).toBe(full.rows + 1);
  });
});

describe('identity: only the run context decides who writes where', () => {
  it('a plain conversation of the same owner touches nothing', async () => {
    const { user, team, agents, members } = await setup();
    const { entry } = ok((await run(user.id, team.id, members[0]!, [publish('p1')])).results[0]) as { entry: ApiStateEntry };
    const before = await snapshot(team.id);
    // The same agent, in an ordinary conversation outside the team.
    const conversation = await createConversation(user.id, agents[0]!.id);
    // The owner's own chat message (start): its directives are trusted.
    const { run: plain } = await start(
      user.id,
      conversation.id,
      { text: [publish('p1'), update(entry.id, 1, 'hijacked'), call('read_team_state', {})].join('\n') },
      { idempotencyKey: 'plain-1' },
    );
    expect((await wait(plain.id, 15_000))?.status).toBe('success');
    const results = await toolResultsOf(conversation.id, (k) => k.runId === plain.id);
    expect(results.map((r) => r.name)).toEqual(['publish_team_state', 'update_team_state', 'read_team_state']);
    results.forEach((r) => refused(r, new RegExp(NOT_A_MEMBER)));
    expect(await snapshot(team.id)).toEqual(before);
  });

  it("another owner's member conversation cannot reach this team, even naming it in the arguments", async () => {
    const alice = await setup();
    const { entry } = ok((await run(alice.user.id, alice.team.id, alice.members[0]!, [publish('p1')])).results[0]) as { entry: ApiStateEntry };
    const before = await snapshot(alice.team.id);
    const bob = await setup();
    const { results } = await run(bob.user.id, bob.team.id, bob.members[0]!, [
      call('publish_team_state', { team_id: alice.team.id, request_id: 'p1', kind: 'plan', title: 'Cost review', content: 'Research gathers quotes' }),
      call('update_team_state', { team_id: alice.team.id, entry_id: entry.id, expected_revision: 1, title: 'x', content: 'hijacked', status: 'archived' }),
      call('read_team_state', { team_id: alice.team.id, include_archived: true }),
      call('read_team_state', { entry_id: entry.id, include_archived: true }),
    ]);
    // The publication lands in Bob's own team.
    const bobEntry = (ok(results[0]) as { entry: ApiStateEntry }).entry;
    expect(bobEntry.id).not.toBe(entry.id);
    expect((await allEntries(bob.team.id)).map((e) => e.id)).toEqual([bobEntry.id]);
    refused(results[1], /No state entry/);
    expect((ok(results[2]) as { entries: ApiStateEntry[] }).entries.map((e) => e.id)).toEqual([bobEntry.id]);
    expect((ok(results[3]) as { entries: ApiStateEntry[] }).entries).toEqual([]);
    expect(await snapshot(alice.team.id)).toEqual(before);
  });
});

/** The public state inside a job's frozen input (the shared-context block of its human message). */
function frozenState(job: Job): Array<{ id: string; content: string; revision: number }> {
  const text = (job.frozenInput as { messageContent: string }).messageContent;
  const block = /<ensemble-context>\n([\s\S]*)\n<\/ensemble-context>/.exec(text);
  expect(block).not.toBeNull();
  return (JSON.parse(block![1]!) as { state: Array<{ id: string; content: string; revision: number }> }).state;
}

describe('frozen input', () => {
  it("an admitted job's frozen input never changes after a later state edit; new requests see the edit", async () => {
    const { user, team, members } = await setup(['Research', 'Review', 'Writer']);
    const [research, review, writer] = members;
    const { entry } = ok((await run(user.id, team.id, research!, [publish('p1', 'Cost review', 'Original plan text')])).results[0]) as { entry: ApiStateEntry };

    const slow = (await sendRequest(user.id, team.id, { memberIds: [writer!.id], text: '/sleep 3000\n/reply written', draftKey: 'slow' })).jobs[0]!;
    const admitted = await until(async () => ((await jobRow(slow.id)).frozenInput ? await jobRow(slow.id) : null), 10_000, 'slow job admitted');
    const frozen = JSON.stringify(admitted.frozenInput);
    expect(frozenState(admitted)).toEqual([{ id: entry.id, kind: 'plan', title: 'Cost review', content: 'Original plan text', revision: 1 }]);

    ok((await run(user.id, team.id, review!, [update(entry.id, 1, 'Edited plan text')])).results[0]);
    expect((await jobRow(slow.id)).status).toBe('running');
    expect(JSON.stringify((await jobRow(slow.id)).frozenInput)).toBe(frozen);

    const later = await run(user.id, team.id, research!, ['/reply seen']);
    expect(frozenState(later.job)).toEqual([{ id: entry.id, kind: 'plan', title: 'Cost review', content: 'Edited plan text', revision: 2 }]);

    const done = await until(async () => (await jobRow(slow.id)).status === 'completed' && await jobRow(slow.id), 10_000, 'slow job done');
    expect(JSON.stringify(done.frozenInput)).toBe(frozen);
    expect(frozenState(done)[0]!.content).toBe('Original plan text');
  });
});
