import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as teamRoute from '@/app/api/v1/teams/[id]/route';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx } from '@/server/db';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { publishState, stateContextBytes } from '@/server/teams/state';
import { makeUser } from '../support/users';
import { call, makeTeam } from '../support/teams';

const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const jobRow = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const conversationTitle = async (id: string) => (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, id)))[0]!.title;
/** The request message a job's run starts from (built once, at admission). */
const frozenMessage = async (id: string) => ((await jobRow(id)).frozenInput as { messageContent: string }).messageContent;
const contextGoal = (message: string) => (JSON.parse(/<ensemble-context>\n([\s\S]*?)\n<\/ensemble-context>/.exec(message)![1]!) as { goal: string }).goal;

async function setup() {
  const alice = await makeUser('alice');
  const { team } = await makeTeam(alice.id);
  const patch = (body: unknown, id = team.id, auth = alice.auth) => call(teamRoute.PATCH, { method: 'PATCH', headers: auth, body, params: { id } });
  return { alice, team, patch };
}

describe('PATCH /teams/:id — rename and goal', () => {
  it('renames and edits the goal (stored trimmed), moves the revision, keeps the budget; fields left out keep their value', async () => {
    const { team, patch } = await setup();
    const before = await teamRow(team.id);
    const renamed = await patch({ name: '  Release  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Release', goal: 'Ship the thing', tokenBudget: null });
    expect((await teamRow(team.id)).revision).toBeGreaterThan(before.revision);

    const goal = await patch({ goal: 'Ship 2.0 by Friday\nwith notes' });
    expect(goal.body).toMatchObject({ name: 'Release', goal: 'Ship 2.0 by Friday\nwith notes' });
    const both = await patch({ name: 'R2', goal: 'G2', tokenBudget: 5_000 });
    expect(both.body).toMatchObject({ name: 'R2', goal: 'G2', tokenBudget: 5_000 });
    // The budget alone still works as before (the budget dialog sends only it).
    expect((await patch({ tokenBudget: null })).body).toMatchObject({ name: 'R2', goal: 'G2', tokenBudget: null });
  });

  it('bounds the name at 80 characters / 160 bytes in ASCII, CJK and emoji (limit accepted, one past refused, nothing changes)', async () => {
    const { team, patch } = await setup();
    const ok = async (name: string) => {
      const res = await patch({ name });
      expect(res.status, name).toBe(200);
      expect((await teamRow(team.id)).name).toBe(name);
    };
    const refused = async (name: string, words: string) => {
      const before = await teamRow(team.id);
      const res = await patch({ name });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: { code: 'validation_error', fields: { name: expect.stringContaining(words) } } });
      expect(await teamRow(team.id)).toEqual(before);
    };
    await ok('a'.repeat(LIMITS.team.name.maxChars));
    await refused('a'.repeat(81), '80 characters');
    await ok('研'.repeat(53)); // 159 bytes
    await refused('研'.repeat(54), '160 bytes'); // 162 bytes, 54 characters
    await ok('🚀'.repeat(40)); // 160 bytes
    await refused('🚀'.repeat(41), '160 bytes');
    await refused('   ', 'Required');
    // A lone surrogate can't be stored as UTF-8: the body is refused before any field is read.
    expect((await patch({ name: '\ud800x' })).status).toBe(422);
    expect((await teamRow(team.id)).name).toBe('🚀'.repeat(40));
  });

  it('bounds the goal at 2,000 characters / 4,000 bytes in ASCII, CJK and emoji', async () => {
    const { team, patch } = await setup();
    expect((await patch({ goal: 'g'.repeat(2_000) })).status).toBe(200);
    expect((await patch({ goal: 'g'.repeat(2_001) })).body).toMatchObject({ error: { fields: { goal: expect.stringContaining('2,000 characters') } } });
    expect((await patch({ goal: '研'.repeat(1_333) })).status).toBe(200); // 3,999 bytes
    expect((await patch({ goal: '研'.repeat(1_334) })).body).toMatchObject({ error: { fields: { goal: expect.stringContaining('4,000 bytes') } } });
    expect((await patch({ goal: '🚀'.repeat(1_000) })).status).toBe(200);
    expect((await patch({ goal: '🚀'.repeat(1_001) })).status).toBe(422);
    expect((await teamRow(team.id)).goal).toBe('🚀'.repeat(1_000));
  });

  it('refuses an empty body, unknown fields and wrong types as field errors', async () => {
    const { team, patch } = await setup();
    const before = await teamRow(team.id);
    expect((await patch({})).body).toMatchObject({ error: { code: 'validation_error', fields: { name: 'Send name, goal, tokenBudget or moneyBudget' } } });
    expect((await patch({ name: 'x', members: [] })).body).toMatchObject({ error: { fields: { members: 'Unknown field' } } });
    expect((await patch({ goal: 7 })).status).toBe(422);
    expect((await patch({ tokenBudget: 999 })).body).toMatchObject({ error: { fields: { tokenBudget: expect.stringContaining('1,000') } } });
    expect(await teamRow(team.id)).toEqual(before);
  });

  it('refuses a goal that would push the shared context past its budget, and changes nothing', async () => {
    // A person's goal holds no control characters (ADR 046): at most about 4,000 bytes in the context's JSON, which
    // beside the state's 16,000-byte projection no longer passes 24,000; the check is exercised under a lower budget.
    const budget = LIMITS.sharedContext as { maxBytes: number };
    const saved = budget.maxBytes;
    budget.maxBytes = 16_000;
    try {
      const { team, patch } = await setup();
      const member = team.members[0]!;
      // Active state of about 12,800 bytes in the context.
      for (let i = 0; i < 6; i++) {
        await publishState({ teamId: team.id, memberId: member.id, conversationId: member.conversationId!, jobId: null }, { requestId: `s${i}`, kind: 'finding', title: `F${i}`, content: '研'.repeat(666) });
      }
      // A quote is 2 bytes in the context's JSON: 2,000 of them (a valid goal) are about 4,000 bytes there.
      const heavy = 'x' + '"'.repeat(1_998) + 'x';
      const before = await teamRow(team.id);
      const res = await patch({ goal: heavy, name: 'Not applied either' });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: { fields: { goal: expect.stringContaining('16,000-byte budget') } } });
      expect(await teamRow(team.id)).toEqual(before);
      expect(await stateContextBytes(team.id)).toBeLessThanOrEqual(budget.maxBytes);
      // A plain goal of the same length (half the bytes) still fits beside the same state.
      expect((await patch({ goal: 'g'.repeat(2_000) })).status).toBe(200);
    } finally {
      budget.maxBytes = saved;
    }
  });

  it('another owner can neither rename nor re-goal the team: 404 like a missing one, nothing changes', async () => {
    const { team, patch } = await setup();
    const bob = await makeUser('bob');
    const before = await teamRow(team.id);
    const titles = await Promise.all(team.members.map((m) => conversationTitle(m.conversationId!)));
    const foreign = await patch({ name: 'Taken over', goal: 'Mine now' }, team.id, bob.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: { code: 'not_found' } });
    expect((await patch({ name: 'x' }, 'no-such-team', bob.auth)).body).toEqual(foreign.body);
    expect(await teamRow(team.id)).toEqual(before);
    expect(await Promise.all(team.members.map((m) => conversationTitle(m.conversationId!)))).toEqual(titles);
  });

  it('a rename moves member conversation titles that still follow the team name', async () => {
    const { team, patch } = await setup();
    const [a, b] = team.members;
    expect(await conversationTitle(a!.conversationId!)).toBe(`${team.name} · ${a!.name}`);
    // A title that no longer reads "<team> · <member>" is someone's choice: left alone.
    await writeTx((tx) => tx.update(schema.conversations).set({ title: 'My own title' }).where(eq(schema.conversations.id, b!.conversationId!)));
    await patch({ name: 'Release 研🚀' });
    expect(await conversationTitle(a!.conversationId!)).toBe(`Release 研🚀 · ${a!.name}`);
    expect(await conversationTitle(b!.conversationId!)).toBe('My own title');
  });
});

describe('new requests see the new goal and name; admitted ones keep their frozen input', () => {
  it('freezes the goal at admission', async () => {
    const { alice, team, patch } = await setup();
    const member = team.members[0]!.id;
    const first = (await sendRequest(alice.id, team.id, { memberIds: [member], text: 'first', draftKey: 'k1' })).jobs[0]!;
    expect(await admitJob(first.id)).toBe(true);
    const frozen = JSON.stringify((await jobRow(first.id)).frozenInput);
    expect(contextGoal(await frozenMessage(first.id))).toBe('Ship the thing');

    // Queued before the edit, admitted after it: it sees the new goal (the goal is read at admission).
    const queued = (await sendRequest(alice.id, team.id, { memberIds: [member], text: 'second', draftKey: 'k2' })).jobs[0]!;
    expect((await patch({ name: 'Renamed', goal: 'New goal 研🚀' })).status).toBe(200);
    const later = (await sendRequest(alice.id, team.id, { memberIds: [member], text: 'third', draftKey: 'k3' })).jobs[0]!;

    expect(JSON.stringify((await jobRow(first.id)).frozenInput)).toBe(frozen);
    expect(await admitJob(queued.id)).toBe(true);
    expect(await admitJob(later.id)).toBe(true);
    for (const id of [queued.id, later.id]) {
      expect(contextGoal(await frozenMessage(id))).toBe('New goal 研🚀');
      expect(await frozenMessage(id)).toContain('team "Renamed"');
    }
    expect(await frozenMessage(first.id)).toContain(`team "${team.name}"`);
    expect(JSON.stringify((await jobRow(first.id)).frozenInput)).toBe(frozen);
  });
});
