import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { utf8Bytes } from '@/lib/text-bounds';
import type { ApiStateEntry } from '@/lib/types/team';
import { getDb, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import { buildSharedContext } from '@/server/teams/context';
import { createTeam } from '@/server/teams/teams';
import {
  StateRefusal,
  allEntries,
  listStateForApi,
  projectionBytes,
  publishState,
  readState,
  stateContextBytes,
  updateState,
  type StateActor,
} from '@/server/teams/state';
import { GET } from '@/app/api/v1/teams/[id]/state/route';
import { makeUser } from '../support/users';
import { makeAgents, makeTeam } from '../support/teams';

const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const rowCount = async (teamId: string) =>
  (await statement('select count(*) as n from state_entries where team_id = ?').get(teamId) as { n: number }).n;

/** A fake caller: the service takes identity as an argument (the tools derive it from the run context). */
async function setup(names = ['Research', 'Review']) {
  const user = await makeUser('owner');
  const { team } = await makeTeam(user.id, names);
  const actors: StateActor[] = team.members.map((m) => ({ teamId: team.id, memberId: m.id, conversationId: m.conversationId!, jobId: null }));
  return { user, team, actors };
}

/** Everything a refused write must leave untouched. */
async function snapshot(teamId: string) {
  const t = await teamRow(teamId);
  return { rows: await rowCount(teamId), stateRevision: t.stateRevision, revision: t.revision, entries: JSON.stringify(await allEntries(teamId)) };
}

async function expectRefusal(fn: () => Promise<unknown>, code: StateRefusal['code'], message?: RegExp) {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(StateRefusal);
  expect((caught as StateRefusal).code).toBe(code);
  if (message) expect((caught as StateRefusal).message).toMatch(message);
}

const publish = (actor: StateActor, requestId: string, title = 'Cost review', content = 'Research gathers quotes', kind = 'plan') =>
  publishState(actor, { requestId, kind, title, content });

describe('publish_team_state service', () => {
  it('publishes an entry at revision 1, bumping the state and activity revisions', async () => {
    const { team, actors } = await setup();
    const before = await teamRow(team.id);
    const { entry, revision } = await publish(actors[0]!, 'p1');
    expect(entry).toMatchObject({
      kind: 'plan',
      title: 'Cost review',
      content: 'Research gathers quotes',
      status: 'active',
      revision: 1,
      createdBy: { memberId: actors[0]!.memberId, name: team.members[0]!.name },
      updatedBy: { memberId: actors[0]!.memberId, name: team.members[0]!.name },
      source: { conversationId: actors[0]!.conversationId, jobId: null },
    });
    expect(revision).toBe(before.stateRevision + 1);
    expect((await teamRow(team.id)).stateRevision).toBe(before.stateRevision + 1);
    expect((await teamRow(team.id)).revision).toBe(before.revision + 1);
    const stored = (await getDb().select().from(schema.stateEntries).where(eq(schema.stateEntries.id, entry.id)))[0]!;
    expect(stored.publicationKey).toBe(`${actors[0]!.conversationId}:p1`);
  });

  it('a retry returns the same entry without a new revision; different original content is refused', async () => {
    const { team, actors } = await setup();
    const first = await publish(actors[0]!, 'p1');
    const before = await snapshot(team.id);
    const again = await publish(actors[0]!, 'p1');
    expect(again).toEqual(first);
    expect(await snapshot(team.id)).toEqual(before);
    await expectRefusal(() => publish(actors[0]!, 'p1', 'Cost review', 'Something else'), 'request_id_reused', /already used/);
    await expectRefusal(() => publish(actors[0]!, 'p1', 'Cost review', 'Research gathers quotes', 'finding'), 'request_id_reused');
    expect(await snapshot(team.id)).toEqual(before);
    // The key is per conversation: another member's p1 is its own entry.
    const other = await publish(actors[1]!, 'p1');
    expect(other.entry.id).not.toBe(first.entry.id);
  });

  it('a retry after an update returns the current entry without undoing the update', async () => {
    const { actors } = await setup();
    const { entry } = await publish(actors[0]!, 'p1');
    const updated = await updateState(actors[1]!, { entryId: entry.id, expectedRevision: 1, title: 'Cost review', content: 'Include annual costs', status: 'active' });
    expect(updated.updated).toBe(true);
    const retry = await publish(actors[0]!, 'p1');
    expect(retry.entry).toEqual(updated.entry);
    expect(retry.entry.content).toBe('Include annual costs');
    expect(retry.entry.revision).toBe(2);
  });

  it('refuses bad kinds, blank titles and lone surrogates', async () => {
    const { team, actors } = await setup();
    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[0]!, 'a', 'T', 'c', 'memo'), 'invalid', /kind must be one of/);
    await expectRefusal(() => publish(actors[0]!, 'b', '   ', 'c'), 'invalid', /title is required/);
    await expectRefusal(() => publish(actors[0]!, 'c', 'T', 'bad \ud800 half'), 'invalid', /surrogate/);
    await expectRefusal(() => publish(actors[0]!, '', 'T', 'c'), 'invalid', /request_id/);
    expect(await snapshot(team.id)).toEqual(before);
  });
});

describe('update_team_state service', () => {
  it('updates, conflicts on a stale revision, accepts an identical retry of the latest update and refuses older retries', async () => {
    const { team, actors } = await setup();
    const [research, review] = actors as [StateActor, StateActor];
    const { entry } = await publish(research, 'p1');
    const first = { entryId: entry.id, expectedRevision: 1, title: 'Cost review', content: 'v2', status: 'active' };
    const ok = await updateState({ ...review, jobId: null }, first);
    expect(ok).toMatchObject({ updated: true, entry: { revision: 2, content: 'v2', kind: 'plan' } });
    expect(ok.entry.createdBy.memberId).toBe(research.memberId);
    expect(ok.entry.updatedBy).toEqual({ memberId: review.memberId, name: team.members[1]!.name });
    expect(ok.entry.source.conversationId).toBe(review.conversationId);

    // Identical retry of the latest update: success, no new revision, nothing written.
    const before = await snapshot(team.id);
    expect(await updateState(review, first)).toEqual({ updated: true, entry: ok.entry });
    expect(await snapshot(team.id)).toEqual(before);

    // A stale expected revision with different content: conflict with the current entry, nothing written.
    const stale = await updateState(research, { ...first, content: 'mine' });
    expect(stale).toEqual({ updated: false, conflict: true, entry: ok.entry });
    expect(await snapshot(team.id)).toEqual(before);

    const second = await updateState(research, { entryId: entry.id, expectedRevision: 2, title: 'Cost review', content: 'v3', status: 'active' });
    expect(second).toMatchObject({ updated: true, entry: { revision: 3, content: 'v3' } });
    // The first update is now an older retry: it conflicts instead of undoing v3.
    const older = await updateState(review, first);
    expect(older).toMatchObject({ updated: false, conflict: true, entry: { revision: 3, content: 'v3' } });
    expect((await teamRow(team.id)).stateRevision).toBe(3);
  });

  it('an update that changes nothing succeeds without a new revision', async () => {
    const { team, actors } = await setup();
    const { entry } = await publish(actors[0]!, 'p1');
    const before = await snapshot(team.id);
    const same = await updateState(actors[1]!, { entryId: entry.id, expectedRevision: 1, title: entry.title, content: entry.content, status: 'active' });
    expect(same).toEqual({ updated: true, entry });
    expect(await snapshot(team.id)).toEqual(before);
  });

  it('refuses unknown entries, entries of other teams and bad arguments without writing', async () => {
    const { team, actors } = await setup();
    const other = await setup();
    const { entry } = await publish(other.actors[0]!, 'x');
    const before = await snapshot(team.id);
    const otherBefore = await snapshot(other.team.id);
    const base = { expectedRevision: 1, title: 'T', content: 'c', status: 'active' };
    await expectRefusal(() => updateState(actors[0]!, { ...base, entryId: 'nope' }), 'not_found');
    await expectRefusal(() => updateState(actors[0]!, { ...base, entryId: entry.id }), 'not_found', /No state entry/);
    await expectRefusal(() => updateState(actors[0]!, { ...base, entryId: entry.id, status: 'deleted' }), 'invalid', /status/);
    await expectRefusal(() => updateState(actors[0]!, { ...base, entryId: entry.id, expectedRevision: 0 }), 'invalid', /expected_revision/);
    expect(await snapshot(team.id)).toEqual(before);
    expect(await snapshot(other.team.id)).toEqual(otherBefore);
  });

  it('concurrent updates with the same expected revision: exactly one wins', async () => {
    const { actors } = await setup(['A', 'B', 'C', 'D']);
    const { entry } = await publish(actors[0]!, 'p1');
    const results = await Promise.all(
      actors.map(async (actor, i) => updateState(actor, { entryId: entry.id, expectedRevision: 1, title: 'T', content: `writer ${i}`, status: 'active' })),
    );
    expect(results.filter((r) => r.updated)).toHaveLength(1);
    expect(results.filter((r) => !r.updated && r.conflict)).toHaveLength(3);
    expect((await readState(actors[0]!.teamId, { entryId: entry.id })).entries[0]!.revision).toBe(2);
  });
});

describe('read_team_state service', () => {
  it('filters by id, kind and a literal case-insensitive query; archived only on request', async () => {
    const { team, actors } = await setup();
    const a = (await publish(actors[0]!, 'a', 'Budget 100% sure', 'Quotes from vendors', 'finding')).entry;
    const b = (await publish(actors[0]!, 'b', 'Open question', 'Who signs_off? 東京 office', 'question')).entry;
    const c = (await publish(actors[1]!, 'c', 'Old plan', 'Superseded', 'plan')).entry;
    await updateState(actors[1]!, { entryId: c.id, expectedRevision: 1, title: 'Old plan', content: 'Superseded', status: 'archived' });

    const ids = (view: { entries: ApiStateEntry[] }) => view.entries.map((e) => e.id);
    expect(ids(await readState(team.id))).toEqual([a.id, b.id]);
    expect(ids(await readState(team.id, { includeArchived: true }))).toEqual([a.id, b.id, c.id]);
    expect(ids(await readState(team.id, { kind: 'question' }))).toEqual([b.id]);
    expect(ids(await readState(team.id, { entryId: a.id }))).toEqual([a.id]);
    expect(ids(await readState(team.id, { entryId: c.id }))).toEqual([]);
    expect(ids(await readState(team.id, { entryId: c.id, includeArchived: true }))).toEqual([c.id]);
    expect(ids(await readState(team.id, { query: 'QUOTES' }))).toEqual([a.id]);
    expect(ids(await readState(team.id, { query: '東京' }))).toEqual([b.id]);
    // LIKE wildcards are literal characters here.
    expect(ids(await readState(team.id, { query: '%' }))).toEqual([a.id]);
    expect(ids(await readState(team.id, { query: '_' }))).toEqual([b.id]);
    expect(ids(await readState(team.id, { query: 'o%' }))).toEqual([]);
    expect(ids(await readState(team.id, { query: 'superseded' }))).toEqual([]);
    expect(ids(await readState(team.id, { query: 'superseded', includeArchived: true }))).toEqual([c.id]);
    expect((await readState(team.id)).revision).toBe((await teamRow(team.id)).stateRevision);
  });

  it('archiving leaves the shared context, stays searchable and keeps its slot', async () => {
    const { team, actors } = await setup();
    const { entry } = await publish(actors[0]!, 'p1', 'Keep me', 'Searchable later');
    expect((await buildSharedContext(team.id)).state.map((s) => s.id)).toEqual([entry.id]);
    const archived = await updateState(actors[0]!, { entryId: entry.id, expectedRevision: 1, title: 'Keep me', content: 'Searchable later', status: 'archived' });
    expect(archived).toMatchObject({ updated: true, entry: { status: 'archived', revision: 2 } });
    expect((await buildSharedContext(team.id)).state).toEqual([]);
    expect((await readState(team.id, { query: 'searchable', includeArchived: true })).entries.map((e) => e.id)).toEqual([entry.id]);
    for (let i = 1; i < LIMITS.publicState.entries; i++) await publish(actors[0]!, `fill-${i}`, `Entry ${i}`, 'x');
    expect(await rowCount(team.id)).toBe(LIMITS.publicState.entries);
    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[1]!, 'one-more', 'Too many', 'x'), 'entry_limit', /archived ones included.*Reuse an existing entry/);
    expect(await snapshot(team.id)).toEqual(before);
    // Unarchiving is an ordinary update.
    expect((await updateState(actors[1]!, { entryId: entry.id, expectedRevision: 2, title: 'Keep me', content: 'Back', status: 'active' })).updated).toBe(true);
  });
});

const ascii = (n: number) => 'a'.repeat(n);
const cjk = (n: number) => '東'.repeat(n);
const emoji = (n: number) => '😀'.repeat(n);

describe('text bounds (exactly at the limit and one past)', () => {
  const { title, content } = LIMITS.publicState;
  // Titles: 80 characters / 160 bytes. CJK is 3 bytes, emoji 4 bytes (one character each).
  const titleCases: Array<[string, string, string]> = [
    ['ASCII', ascii(title.maxChars), ascii(title.maxChars + 1)],
    ['CJK', cjk(53) + 'a', cjk(54)], // 160 bytes vs 162 bytes
    ['emoji', emoji(40), emoji(40) + 'a'], // 160 bytes vs 161 bytes
  ];
  const contentCases: Array<[string, string, string]> = [
    ['ASCII', ascii(content.maxChars), ascii(content.maxChars + 1)],
    ['CJK', cjk(666) + 'ab', cjk(666) + 'abc'], // 2,000 bytes vs 2,001 bytes
    ['emoji', emoji(500), emoji(500) + 'a'], // 2,000 bytes vs 2,001 bytes
  ];

  it.each(titleCases)('title in %s', async (_label, atLimit, past) => {
    const { team, actors } = await setup();
    expect(utf8Bytes(atLimit)).toBeLessThanOrEqual(title.maxBytes);
    expect((await publish(actors[0]!, 'ok', atLimit)).entry.title).toBe(atLimit);
    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[0]!, 'past', past), 'invalid', /title is too long/);
    const { entry } = await publish(actors[0]!, 'u');
    await expectRefusal(() => updateState(actors[0]!, { entryId: entry.id, expectedRevision: 1, title: past, content: 'c', status: 'active' }), 'invalid');
    expect(await rowCount(team.id)).toBe(before.rows + 1);
  });

  it.each(contentCases)('content in %s', async (_label, atLimit, past) => {
    const { team, actors } = await setup();
    expect((await publish(actors[0]!, 'ok', 'T', atLimit)).entry.content).toBe(atLimit);
    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[0]!, 'past', 'T', past), 'invalid', /content is too long/);
    expect(await snapshot(team.id)).toEqual(before);
  });
});

/** What one more entry adds to the projection, given the team's current state and the writer. */
function projectedEntryBytes(team: { members: Array<{ id: string; name: string; conversationId: string | null }> }, memberIndex: number, fields: { kind: string; title: string; content: string }, jobId: string | null) {
  const m = team.members[memberIndex]!;
  const fake: ApiStateEntry = {
    id: crypto.randomUUID(),
    kind: fields.kind as ApiStateEntry['kind'],
    title: fields.title,
    content: fields.content,
    status: 'active',
    revision: 1,
    createdBy: { memberId: m.id, name: m.name },
    updatedBy: { memberId: m.id, name: m.name },
    source: { conversationId: m.conversationId, jobId },
    updatedAt: new Date().toISOString(),
  };
  return utf8Bytes(JSON.stringify(fake));
}

/** Control characters take 6 bytes once JSON-escaped (\u0001): pad to an exact byte count with them and ASCII. */
const padTo = (bytes: number) => '\u0001'.repeat(Math.floor(bytes / 6)) + 'a'.repeat(bytes % 6);

describe('projection budget (16,000 bytes, JSON escaping counted)', () => {
  it('accepts exactly 16,000 bytes and refuses 16,001 bytes, rolling back completely', async () => {
    const { team, actors } = await setup();
    // Quotes, backslashes and newlines each take two bytes once JSON-escaped; emoji four.
    const heavy = '"\\\n'.repeat(300) + emoji(25); // 1,000 raw bytes, 1,902 as a JSON string
    expect(utf8Bytes(heavy)).toBe(1_000);
    expect(utf8Bytes(JSON.stringify(heavy))).toBe(1_902);
    const limit = LIMITS.publicState.projectionBytes;
    for (let i = 0; ; i++) {
      const fields = { kind: 'finding', title: `F${i}`, content: heavy };
      if (projectionBytes(await allEntries(team.id)) + 1 + projectedEntryBytes(team, 0, fields, null) > limit - 1_000) break;
      await publish(actors[0]!, `fill-${i}`, fields.title, heavy, 'finding');
    }
    const room = limit - projectionBytes(await allEntries(team.id)) - 1; // minus the separating comma
    const pad = room - projectedEntryBytes(team, 1, { kind: 'plan', title: 'Last', content: '' }, null);
    expect(pad).toBeGreaterThan(500);
    const exact = padTo(pad);
    const over = `${exact}a`;
    expect(utf8Bytes(JSON.stringify(exact)) - 2).toBe(pad);

    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[1]!, 'last', 'Last', over), 'projection_limit', /16,001 bytes.*16,000-byte budget.*Shorten or reuse/);
    expect(await snapshot(team.id)).toEqual(before);

    await publish(actors[1]!, 'last', 'Last', exact);
    expect(projectionBytes(await allEntries(team.id))).toBe(limit);
    expect(projectionBytes((await listStateForApi((await teamRow(team.id)).ownerId, team.id)).entries)).toBe(limit);

    // An update that would grow the projection by one byte is refused and leaves the entry as it was.
    const first = (await allEntries(team.id))[0]!;
    const full = await snapshot(team.id);
    await expectRefusal(
      () => updateState(actors[0]!, { entryId: first.id, expectedRevision: 1, title: first.title, content: `${first.content}a`, status: 'active' }),
      'projection_limit',
    );
    expect(await snapshot(team.id)).toEqual(full);
    // Another publication is refused too: the budget counts archived entries, so archiving would not help.
    await expectRefusal(() => publish(actors[1]!, 'more', 'M', ''), 'projection_limit');
  });
});

describe('shared context budget (24,000 bytes for goal, roster and active state)', () => {
  it('accepts exactly 24,000 bytes, refuses one byte more, and archiving makes room', async () => {
    const user = await makeUser('big');
    const agents = await makeAgents(user.id, ['Alpha', 'Beta'].map((n) => `${n}-${crypto.randomUUID().slice(0, 6)}`));
    // A goal of control characters: under 2,000 characters, but 6 bytes each once JSON-escaped.
    const goal = `Goal ${'\u0001'.repeat(1_990)} end`;
    const { team } = await createTeam(user.id, { requestId: 'big', name: 'Big', goal, agentIds: agents.map((a) => a.id) });
    const actors: StateActor[] = team.members.map((m) => ({ teamId: team.id, memberId: m.id, conversationId: m.conversationId!, jobId: null }));
    expect(await stateContextBytes(team.id)).toBeGreaterThan(12_000);
    const limit = LIMITS.sharedContext.maxBytes;

    // One more active entry as the context holds it ({ id, kind, title, content, revision }) plus its comma.
    const contextEntryBytes = (title: string, text: string) =>
      utf8Bytes(JSON.stringify({ id: crypto.randomUUID(), kind: 'plan', title, content: text, revision: 1 })) + 1;
    const body = '\n\\"'.repeat(300) + emoji(25); // 1,902 bytes as a JSON string
    let filled = 0;
    while (await stateContextBytes(team.id) + contextEntryBytes(`F${filled}`, body) <= limit - 1_000) {
      await publish(actors[0]!, `f${filled}`, `F${filled}`, body, 'plan');
      filled++;
    }
    expect(projectionBytes(await allEntries(team.id))).toBeLessThan(LIMITS.publicState.projectionBytes - 3_000);

    const pad = limit - await stateContextBytes(team.id) - contextEntryBytes('Last', '');
    expect(pad).toBeGreaterThan(500);
    const exact = padTo(pad);
    const over = `${exact}a`;

    const before = await snapshot(team.id);
    await expectRefusal(() => publish(actors[1]!, 'last', 'Last', over, 'plan'), 'context_limit', /24,001 bytes.*24,000-byte budget/);
    expect(await snapshot(team.id)).toEqual(before);
    await publish(actors[1]!, 'last', 'Last', exact, 'plan');
    expect(await stateContextBytes(team.id)).toBe(limit);
    // The built context keeps every active entry (recent messages are dropped first).
    expect((await buildSharedContext(team.id)).state).toHaveLength(filled + 1);

    // Full: the next publication is refused; archiving an entry makes room in the context.
    const full = await snapshot(team.id);
    await expectRefusal(() => publish(actors[1]!, 'more', 'More', 'x'), 'context_limit');
    expect(await snapshot(team.id)).toEqual(full);
    const first = (await allEntries(team.id))[0]!;
    await updateState(actors[1]!, { entryId: first.id, expectedRevision: 1, title: first.title, content: first.content, status: 'archived' });
    expect((await publish(actors[1]!, 'more', 'More', 'x')).entry.status).toBe('active');
  });
});

describe('GET /api/v1/teams/:id/state', () => {
  const get = (teamId: string, headers: Record<string, string> = {}) =>
    GET(new Request(`http://localhost/api/v1/teams/${teamId}/state`, { headers }), { params: Promise.resolve({ id: teamId }) });

  it('answers 401 without credentials and 404 across owners', async () => {
    const { team } = await setup();
    const stranger = await makeUser('stranger');
    expect((await get(team.id)).status).toBe(401);
    const res = await get(team.id, stranger.auth);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
    expect((await get('missing', stranger.auth)).status).toBe(404);
  });

  it('returns the revision and every entry, archived included, with authors and sources', async () => {
    const { user, team, actors } = await setup();
    const empty = await get(team.id, user.auth);
    expect(await empty.json()).toEqual({ revision: 0, entries: [] });
    const a = (await publish(actors[0]!, 'a', 'Objective', 'Ship', 'objective')).entry;
    await publish(actors[0]!, 'b', 'Plan <img src=x onerror=alert(1)>', 'Line 1\nLine 2', 'plan');
    await updateState({ ...actors[1]!, jobId: 'job-42' }, { entryId: a.id, expectedRevision: 1, title: 'Objective', content: 'Ship', status: 'archived' });
    const res = await get(team.id, user.auth);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.revision).toBe(3);
    expect(body.entries).toHaveLength(2);
    expect(body.entries[0]).toEqual({
      id: a.id,
      kind: 'objective',
      title: 'Objective',
      content: 'Ship',
      status: 'archived',
      revision: 2,
      createdBy: { memberId: team.members[0]!.id, name: team.members[0]!.name },
      updatedBy: { memberId: team.members[1]!.id, name: team.members[1]!.name },
      source: { conversationId: team.members[1]!.conversationId, jobId: 'job-42' },
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(body.entries[1]).toMatchObject({ title: 'Plan <img src=x onerror=alert(1)>', content: 'Line 1\nLine 2', status: 'active', revision: 1 });
  });
});
