import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { utf8Bytes } from '@/lib/text-bounds';
import type { ApiStateEntry } from '@/lib/types/team';
import { getDb, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import { buildSharedContext } from '@/server/teams/context';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { createTeam } from '@/server/teams/teams';
import { allEntries, projectionBytes, publishState, stateContextBytes, updateState, type StateActor } from '@/server/teams/state';
import { POST } from '@/app/api/v1/teams/[id]/state/route';
import { PATCH } from '@/app/api/v1/teams/[id]/state/[entryId]/route';
import { makeUser } from '../support/users';
import { call, makeAgents, makeTeam } from '../support/teams';

/**
 * The person in charge writes the team's public state through POST /teams/:id/state and PATCH
 * /teams/:id/state/:entryId (the panel's server actions call the same functions). What must not happen: a write
 * past a bound, a stale edit that overwrites a member's change, another owner reading or changing anything.
 */

type Owner = Awaited<ReturnType<typeof makeUser>>;
const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const rowCount = async (teamId: string) =>
  (await statement('select count(*) as n from state_entries where team_id = ?').get(teamId) as { n: number }).n;
async function snapshot(teamId: string) {
  const t = await teamRow(teamId);
  return { rows: await rowCount(teamId), stateRevision: t.stateRevision, revision: t.revision, entries: JSON.stringify(await allEntries(teamId)) };
}

async function setup() {
  const owner = await makeUser('owner');
  const { team } = await makeTeam(owner.id, ['Research', 'Review']);
  const actors: StateActor[] = team.members.map((m) => ({ teamId: team.id, memberId: m.id, conversationId: m.conversationId!, jobId: null }));
  return { owner, team, actors };
}

const create = (owner: Owner, teamId: string, body: Record<string, unknown>) =>
  call(POST, { method: 'POST', headers: owner.auth, params: { id: teamId }, body: { requestId: crypto.randomUUID(), kind: 'plan', title: 'T', content: '', ...body } });
const patch = (owner: Owner, teamId: string, entryId: string, body: Record<string, unknown>) =>
  call(PATCH, { method: 'PATCH', headers: owner.auth, params: { id: teamId, entryId }, body });
const entryOf = (res: { body: Record<string, unknown> }) => res.body.entry as ApiStateEntry;

const emoji = (n: number) => '😀'.repeat(n);
const cjk = (n: number) => '東'.repeat(n);

describe('the person adds state entries', () => {
  it('stamps the entry "You" with no source, bumps the state and team revisions, and a retry answers the same entry', async () => {
    const { owner, team } = await setup();
    const before = await teamRow(team.id);
    const res = await create(owner, team.id, { requestId: 'r1', kind: 'requirement', title: 'Budget under 5k', content: 'Hard limit.' });
    expect(res.status).toBe(201);
    expect(entryOf(res)).toMatchObject({
      kind: 'requirement',
      title: 'Budget under 5k',
      content: 'Hard limit.',
      status: 'active',
      revision: 1,
      createdBy: { memberId: null, name: 'You' },
      updatedBy: { memberId: null, name: 'You' },
      source: { conversationId: null, jobId: null },
    });
    const after = await teamRow(team.id);
    expect(after.stateRevision).toBe(before.stateRevision + 1);
    // The team revision is what push announces to open workspaces.
    expect(after.revision).toBe(before.revision + 1);

    const same = await snapshot(team.id);
    const retry = await create(owner, team.id, { requestId: 'r1', kind: 'requirement', title: 'Budget under 5k', content: 'Hard limit.' });
    expect(retry.status).toBe(200);
    expect(entryOf(retry)).toEqual(entryOf(res));
    expect(await snapshot(team.id)).toEqual(same);

    // The same requestId for something else is refused: it must not create a second entry nor change the first.
    const reused = await create(owner, team.id, { requestId: 'r1', kind: 'requirement', title: 'Other', content: '' });
    expect([reused.status, reused.body.error]).toMatchObject([409, { code: 'request_id_reused' }]);
    expect(await snapshot(team.id)).toEqual(same);
  });

  it("the person's request ids never collide with a member's", async () => {
    const { owner, team, actors } = await setup();
    const member = await publishState(actors[0]!, { requestId: 'same', kind: 'plan', title: 'Member plan', content: '' });
    const mine = await create(owner, team.id, { requestId: 'same', kind: 'plan', title: 'My plan' });
    expect(mine.status).toBe(201);
    expect(entryOf(mine).id).not.toBe(member.entry.id);
  });

  it('refuses a bad kind, a blank title and unknown fields with field-named errors, writing nothing', async () => {
    const { owner, team } = await setup();
    const before = await snapshot(team.id);
    for (const [body, field] of [
      [{ kind: 'memo' }, 'kind'],
      [{ title: '   ' }, 'title'],
      [{ createdBy: 'Research' }, 'createdBy'],
    ] as const) {
      const res = await create(owner, team.id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(Object.keys((res.body.error as { fields: object }).fields)).toEqual([field]);
    }
    expect(await snapshot(team.id)).toEqual(before);
  });
});

describe('title and content bounds, at the limit and one past (ASCII, CJK, emoji)', () => {
  const { title, content } = LIMITS.publicState;
  // Title: 80 characters / 160 bytes. CJK is 3 bytes (53 fit, 54 = 162 bytes), emoji 4 (40 fit, 41 = 164 bytes).
  const titles: Array<[string, string, string]> = [
    ['ASCII', 'a'.repeat(title.maxChars), 'a'.repeat(title.maxChars + 1)],
    ['CJK', cjk(53), cjk(54)],
    ['emoji', emoji(40), emoji(41)],
  ];
  // Content: 1,000 characters / 2,000 bytes.
  const contents: Array<[string, string, string]> = [
    ['ASCII', 'a'.repeat(content.maxChars), 'a'.repeat(content.maxChars + 1)],
    ['CJK', cjk(666), cjk(667)],
    ['emoji', emoji(500), emoji(501)],
  ];

  for (const [script, fits, past] of titles) {
    it(`title in ${script}: ${utf8Bytes(fits)} bytes is accepted, ${utf8Bytes(past)} refused on create and on edit`, async () => {
      const { owner, team } = await setup();
      const ok = await create(owner, team.id, { title: fits });
      expect(ok.status).toBe(201);
      expect(entryOf(ok).title).toBe(fits);
      const before = await snapshot(team.id);
      const refused = await create(owner, team.id, { title: past });
      expect(refused.status).toBe(422);
      expect((refused.body.error as { fields: Record<string, string> }).fields.title).toMatch(/at most/);
      const edit = await patch(owner, team.id, entryOf(ok).id, { expectedRevision: 1, title: past });
      expect(edit.status).toBe(422);
      expect(await snapshot(team.id)).toEqual(before);
    });
  }

  for (const [script, fits, past] of contents) {
    it(`content in ${script}: ${utf8Bytes(fits)} bytes is accepted, ${utf8Bytes(past)} refused on create and on edit`, async () => {
      const { owner, team } = await setup();
      const ok = await create(owner, team.id, { content: fits });
      expect(ok.status).toBe(201);
      expect(entryOf(ok).content).toBe(fits);
      const before = await snapshot(team.id);
      const refused = await create(owner, team.id, { content: past });
      expect(refused.status).toBe(422);
      expect((refused.body.error as { fields: Record<string, string> }).fields.content).toMatch(/at most/);
      const edit = await patch(owner, team.id, entryOf(ok).id, { expectedRevision: 1, content: past });
      expect(edit.status).toBe(422);
      expect(await snapshot(team.id)).toEqual(before);
    });
  }
});

describe('floods', () => {
  it('the same create sent ten times at once makes one entry (one 201, nine 200 with the same entry)', async () => {
    const { owner, team } = await setup();
    const body = { requestId: 'double-click', kind: 'finding', title: 'Vendor B', content: 'Cheaper' };
    const results = await Promise.all(Array.from({ length: 10 }, () => create(owner, team.id, body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => entryOf(r).id)).size).toBe(1);
    expect(await rowCount(team.id)).toBe(1);
  });

  it('thirty different creates at once: exactly 20 land, the rest are entry_limit, never more than the cap', async () => {
    const { owner, team } = await setup();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => create(owner, team.id, { title: `Flood ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMITS.publicState.entries);
    expect(results.filter((r) => r.status === 409 && (r.body.error as { code: string }).code === 'entry_limit')).toHaveLength(10);
    expect(await rowCount(team.id)).toBe(LIMITS.publicState.entries);
  });
});

describe('team-wide bounds for the person', () => {
  it('the 21st entry is refused (archived ones count); the 20th is accepted', async () => {
    const { owner, team, actors } = await setup();
    for (let i = 0; i < 10; i++) await publishState(actors[i % 2]!, { requestId: `m${i}`, kind: 'finding', title: `M${i}`, content: '' });
    for (let i = 0; i < 9; i++) expect((await create(owner, team.id, { title: `P${i}` })).status).toBe(201);
    const twentieth = await create(owner, team.id, { title: 'Twentieth' });
    expect(twentieth.status).toBe(201);
    expect(await rowCount(team.id)).toBe(LIMITS.publicState.entries);
    // Archiving does not free a slot.
    expect((await patch(owner, team.id, entryOf(twentieth).id, { expectedRevision: 1, status: 'archived' })).status).toBe(200);
    const before = await snapshot(team.id);
    const refused = await create(owner, team.id, { title: 'One too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'entry_limit', message: expect.stringMatching(/20 entries.*Edit an existing entry/) });
    expect(await snapshot(team.id)).toEqual(before);
  });

  it('the projection may reach exactly 16,000 bytes; one byte more is refused and nothing changes', async () => {
    const { owner, team } = await setup();
    const limit = LIMITS.publicState.projectionBytes;
    // Fill with 1,000-character entries, then leave two empty ones whose content takes up the exact rest.
    let i = 0;
    while (projectionBytes(await allEntries(team.id)) < limit - 3_000) {
      expect((await create(owner, team.id, { title: `Fill ${i++}`, content: 'f'.repeat(1_000) })).status).toBe(201);
    }
    const x = entryOf(await create(owner, team.id, { title: 'X' }));
    const y = entryOf(await create(owner, team.id, { title: 'Y' }));
    const room = limit - projectionBytes(await allEntries(team.id));
    expect(room).toBeGreaterThan(1_000);
    expect(room).toBeLessThanOrEqual(2_000);
    // Revisions go from 1 to 2: the same number of digits, so the rest is content alone.
    expect((await patch(owner, team.id, x.id, { expectedRevision: 1, content: 'x'.repeat(1_000) })).status).toBe(200);
    const before = await snapshot(team.id);
    const over = await patch(owner, team.id, y.id, { expectedRevision: 1, content: 'y'.repeat(room - 1_000 + 1) });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'projection_limit', message: expect.stringMatching(/16,001 bytes, over its 16,000-byte budget/) });
    expect(await snapshot(team.id)).toEqual(before);
    expect((await patch(owner, team.id, y.id, { expectedRevision: 1, content: 'y'.repeat(room - 1_000) })).status).toBe(200);
    expect(projectionBytes(await allEntries(team.id))).toBe(limit);
  });

  it('the shared context may reach exactly its budget; one byte more is refused, archiving makes room', async () => {
    // People's text holds no control characters (ADR 046), so a goal (≤ ~4,000 bytes in JSON) and the state (≤ its
    // 16,000-byte projection) no longer reach 24,000 bytes together: the check is exercised under a lower budget.
    const budget = LIMITS.sharedContext as { maxBytes: number };
    const saved = budget.maxBytes;
    budget.maxBytes = 12_000;
    try {
      const owner = await makeUser('big');
      const agents = await makeAgents(owner.id, ['Alpha', 'Beta'].map((n) => `${n}-${crypto.randomUUID().slice(0, 6)}`));
      // Quotes take 2 bytes each once JSON-escaped: this goal is about 4,000 bytes in the context.
      const goal = `Goal ${'"'.repeat(1_990)} end`;
      const { team } = await createTeam(owner.id, { requestId: 'big', name: 'Big', goal, agentIds: agents.map((a) => a.id) });
      const limit = budget.maxBytes;
      const dense = '研'.repeat(600); // 1,800 bytes in the context
      while (await stateContextBytes(team.id) < limit - 1_800 - 300) {
        expect((await create(owner, team.id, { title: 'Dense', content: dense })).status).toBe(201);
      }
      const x = entryOf(await create(owner, team.id, { title: 'X' }));
      const room = limit - await stateContextBytes(team.id);
      expect(room).toBeGreaterThan(0);
      expect(room).toBeLessThan(2_000);
      // Exactly the room: CJK (3 bytes each) and ASCII; one past: one more ASCII byte.
      const exact = '研'.repeat(Math.floor(room / 3)) + 'a'.repeat(room % 3);
      const past = `${exact}a`;
      const before = await snapshot(team.id);
      const over = await patch(owner, team.id, x.id, { expectedRevision: 1, content: past });
      expect(over.status).toBe(409);
      expect(over.body.error).toMatchObject({ code: 'context_limit', message: expect.stringMatching(/over its 12,000-byte budget.*archive/) });
      expect(await snapshot(team.id)).toEqual(before);
      expect((await patch(owner, team.id, x.id, { expectedRevision: 1, content: exact })).status).toBe(200);
      expect(await stateContextBytes(team.id)).toBe(limit);
      // Full: archiving an active entry takes it out of the context and makes room for a new one.
      expect((await create(owner, team.id, { title: 'More' })).status).toBe(409);
      const first = (await allEntries(team.id))[0]!;
      expect((await patch(owner, team.id, first.id, { expectedRevision: 1, status: 'archived' })).status).toBe(200);
      expect((await create(owner, team.id, { title: 'More' })).status).toBe(201);
    } finally {
      budget.maxBytes = saved;
    }
  });
});

describe('editing: revisions the person saw, conflicts, archive and restore', () => {
  it('a member edit in between: 409 with the current entry, nothing overwritten; saving again on the new revision works', async () => {
    const { owner, team, actors } = await setup();
    const mine = entryOf(await create(owner, team.id, { kind: 'objective', title: 'Launch', content: 'In May' }));
    const theirs = await updateState(actors[0]!, { entryId: mine.id, expectedRevision: 1, title: 'Launch', content: 'In June (vendor delay)', status: 'active' });
    expect(theirs.updated).toBe(true);
    const before = await snapshot(team.id);

    const stale = await patch(owner, team.id, mine.id, { expectedRevision: 1, content: 'In April' });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'state_conflict', message: expect.stringContaining(`${team.members[0]!.name} changed this entry`) });
    expect(entryOf(stale)).toEqual(theirs.entry);
    expect(await snapshot(team.id)).toEqual(before);

    // Keep mine: the same edit against the revision the person has now seen.
    const kept = await patch(owner, team.id, mine.id, { expectedRevision: 2, content: 'In April' });
    expect(kept.status).toBe(200);
    expect(entryOf(kept)).toMatchObject({ revision: 3, content: 'In April', createdBy: { name: 'You' }, updatedBy: { memberId: null, name: 'You' } });
    // A retry of that save (lost response) succeeds without a new revision.
    const retry = await patch(owner, team.id, mine.id, { expectedRevision: 2, content: 'In April' });
    expect([retry.status, entryOf(retry).revision]).toEqual([200, 3]);
  });

  it("the person edits a member's entry: the creator stays, the editor is You, the source is cleared", async () => {
    const { owner, team, actors } = await setup();
    const { entry } = await publishState(actors[1]!, { requestId: 'q', kind: 'question', title: 'Which vendor?', content: '' });
    const res = await patch(owner, team.id, entry.id, { expectedRevision: 1, content: 'Vendor B — decided.' });
    expect(entryOf(res)).toMatchObject({
      kind: 'question',
      createdBy: { memberId: actors[1]!.memberId },
      updatedBy: { memberId: null, name: 'You' },
      source: { conversationId: null, jobId: null },
      revision: 2,
    });
  });

  it('archive takes an entry out of the shared context, restore puts it back, and neither changes its text', async () => {
    const { owner, team } = await setup();
    const e = entryOf(await create(owner, team.id, { title: 'Scope', content: 'Only EU' }));
    const archived = await patch(owner, team.id, e.id, { expectedRevision: 1, status: 'archived' });
    expect(entryOf(archived)).toMatchObject({ status: 'archived', revision: 2, title: 'Scope', content: 'Only EU' });
    expect((await buildSharedContext(team.id)).state.map((s) => s.id)).not.toContain(e.id);
    const restored = await patch(owner, team.id, e.id, { expectedRevision: 2, status: 'active' });
    expect(entryOf(restored)).toMatchObject({ status: 'active', revision: 3, title: 'Scope', content: 'Only EU' });
    expect((await buildSharedContext(team.id)).state.map((s) => s.id)).toContain(e.id);
  });

  it('refuses a PATCH without a field to change, a missing or bad revision, and unknown entries', async () => {
    const { owner, team } = await setup();
    const e = entryOf(await create(owner, team.id, { title: 'A' }));
    const before = await snapshot(team.id);
    expect((await patch(owner, team.id, e.id, { expectedRevision: 1 })).status).toBe(422);
    expect((await patch(owner, team.id, e.id, { title: 'B' })).status).toBe(422);
    expect((await patch(owner, team.id, e.id, { expectedRevision: 0, title: 'B' })).status).toBe(422);
    expect((await patch(owner, team.id, e.id, { expectedRevision: 1, status: 'deleted' })).status).toBe(422);
    const missing = await patch(owner, team.id, crypto.randomUUID(), { expectedRevision: 1, title: 'B' });
    expect([missing.status, missing.body.error]).toMatchObject([404, { code: 'not_found' }]);
    expect(await snapshot(team.id)).toEqual(before);
  });

  it('two tabs saving the same revision: exactly one wins, the other gets the conflict', async () => {
    const { owner, team } = await setup();
    const e = entryOf(await create(owner, team.id, { title: 'A' }));
    const results = await Promise.all(['one', 'two', 'three'].map((c) => patch(owner, team.id, e.id, { expectedRevision: 1, content: c })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });
});

describe('owner scoping', () => {
  it("another owner can't add to, edit, archive or probe a team's state: 404, and nothing changes", async () => {
    const { owner, team } = await setup();
    const other = await makeUser('other');
    const e = entryOf(await create(owner, team.id, { title: 'Private plan', content: 'secret' }));
    const before = await snapshot(team.id);
    const add = await create(other, team.id, { title: 'Planted' });
    const edit = await patch(other, team.id, e.id, { expectedRevision: 1, title: 'Taken over' });
    const archive = await patch(other, team.id, e.id, { expectedRevision: 1, status: 'archived' });
    // A stale revision must not leak the current entry across owners either.
    const stale = await patch(other, team.id, e.id, { expectedRevision: 7, title: 'x' });
    for (const res of [add, edit, archive, stale]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found' });
      expect(res.raw).not.toContain('secret');
    }
    expect(await snapshot(team.id)).toEqual(before);

    // Their own team with someone else's entry id: not found, the entry untouched.
    const { team: theirs } = await makeTeam(other.id);
    const cross = await patch(other, theirs.id, e.id, { expectedRevision: 1, title: 'Taken over' });
    expect(cross.status).toBe(404);
    expect(await snapshot(team.id)).toEqual(before);
  });
});

describe('jobs already admitted keep their frozen input', () => {
  it("an admitted request's input is unchanged by the person's later edits; a request admitted after sees them", async () => {
    const { owner, team } = await setup();
    const e = entryOf(await create(owner, team.id, { kind: 'requirement', title: 'Deadline Friday', content: 'No later.' }));
    const send = async (text: string) => (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text, draftKey: crypto.randomUUID() })).jobs[0]!.id;
    const jobRow = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
    const first = await send('Plan the week');
    // The scheduler is not running here: admit by hand, as its planner would.
    expect(await admitJob(first)).toBe(true);
    const frozen = JSON.stringify((await jobRow(first)).frozenInput);
    expect(frozen).toContain('Deadline Friday');

    expect((await patch(owner, team.id, e.id, { expectedRevision: 1, title: 'Deadline Monday' })).status).toBe(200);
    expect((await create(owner, team.id, { kind: 'finding', title: 'Vendor B is cheaper' })).status).toBe(201);
    expect(JSON.stringify((await jobRow(first)).frozenInput)).toBe(frozen);

    const second = await send('Plan the next week');
    expect(await admitJob(second)).toBe(true);
    const later = JSON.stringify((await jobRow(second)).frozenInput);
    expect(later).toContain('Deadline Monday');
    expect(later).toContain('Vendor B is cheaper');
    expect(later).not.toContain('Deadline Friday');
  });
});
