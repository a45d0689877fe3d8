import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as cloneRoute from '@/app/api/v1/teams/[id]/clone/route';
import * as teamRoute from '@/app/api/v1/teams/[id]/route';
import * as teamsRoute from '@/app/api/v1/teams/route';
import { cloneName } from '@/lib/team-clone-name';
import { statement } from '@/server/db/statement';
import { makeUser } from '../support/users';
import { call, makeAgents } from '../support/teams';

/*
 * Team names are unique per owner, compared without case (as agent names are): an @mention names "Team / Member",
 * and two teams of one name offered targets nobody could tell apart. What must not happen: a second team of a name
 * the owner already uses, by creation, rename or clone; or one owner's names refusing another's.
 */
const names = statement('select name from teams where owner_id = ? order by created_at, name');
const namesOf = async (ownerId: string) => (await names.all<{ name: string }>(ownerId)).map((r) => r.name);

async function owner(label: string) {
  const user = await makeUser(label);
  const agents = await makeAgents(user.id, [`A-${crypto.randomUUID().slice(0, 6)}`, `B-${crypto.randomUUID().slice(0, 6)}`]);
  const create = (name: string, requestId: string = crypto.randomUUID()) =>
    call(teamsRoute.POST, { method: 'POST', headers: user.auth, body: { requestId, name, goal: 'Ship it', agentIds: agents.map((a) => a.id) } });
  return { user, create };
}

describe('team names', () => {
  it.each([
    ['ASCII', 'Launch crew', 'launch CREW'],
    ['CJK', '研究チーム', '  研究チーム  '],
    ['emoji', 'Rocket 🚀 crew', 'ROCKET 🚀 CREW'],
    ['accented, composed vs decomposed', 'Équipe', 'E\u0301QUIPE'],
  ])('a second team of a taken name (%s) is refused with the name field, the first kept', async (_, name, again) => {
    const ann = await owner('ann');
    expect((await ann.create(name)).status).toBe(201);
    const refused = await ann.create(again);
    expect(refused.status).toBe(409);
    // The team that holds the name, as it is written, not the refused spelling.
    expect(refused.body).toMatchObject({ error: { code: 'team_name_taken', fields: { name: `You already have a team named "${name}" (names are compared without case)` } } });
    expect(await namesOf(ann.user.id)).toEqual([name]);
  });

  it('a retried creation (same request id) still answers its team, not a conflict with itself', async () => {
    const ann = await owner('ann');
    const first = await ann.create('Same', 'req-1');
    const retry = await ann.create('Same', 'req-1');
    expect([first.status, retry.status]).toEqual([201, 200]);
    expect(retry.body.id).toBe(first.body.id);
  });

  it("another owner's names refuse nothing (names are per owner)", async () => {
    const ann = await owner('ann');
    const bob = await owner('bob');
    expect((await ann.create('Launch crew')).status).toBe(201);
    expect((await bob.create('Launch crew')).status).toBe(201);
  });

  it("a rename to another team's name is refused and changes nothing; a team may keep its name or change its case", async () => {
    const ann = await owner('ann');
    const alpha = (await ann.create('Alpha')).body as { id: string };
    expect((await ann.create('Beta')).status).toBe(201);
    const clash = await call(teamRoute.PATCH, { method: 'PATCH', headers: ann.user.auth, body: { name: 'BETA' }, params: { id: alpha.id } });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ error: { code: 'team_name_taken', fields: { name: expect.any(String) } } });
    expect(await namesOf(ann.user.id)).toEqual(['Alpha', 'Beta']);
    const recased = await call(teamRoute.PATCH, { method: 'PATCH', headers: ann.user.auth, body: { name: 'ALPHA', goal: 'Ship it again' }, params: { id: alpha.id } });
    expect(recased.status).toBe(200);
    expect(await namesOf(ann.user.id)).toEqual(['ALPHA', 'Beta']);
  });

  it('a clone takes the first free "<name> (n)" when it names none, and is refused a taken name it names', async () => {
    const ann = await owner('ann');
    const release = (await ann.create('Release')).body as { id: string };
    const clone = (requestId: string, name?: string) =>
      call(cloneRoute.POST, { method: 'POST', headers: ann.user.auth, body: { requestId, ...(name ? { name } : {}) }, params: { id: release.id } });
    expect((await clone('c1')).body).toMatchObject({ name: 'Release (2)' });
    expect((await clone('c2')).body).toMatchObject({ name: 'Release (3)' });
    const taken = await clone('c3', 'release (2)');
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ error: { code: 'team_name_taken' } });
    expect(await namesOf(ann.user.id)).toEqual(['Release', 'Release (2)', 'Release (3)']);
  });
});

describe('cloneName with the taken names', () => {
  it('offers the first number not in use, compared without case', () => {
    expect(cloneName('Release', ['release (2)', 'Release (3)'])).toBe('Release (4)');
    expect(cloneName('Release (2)', ['Release (3)'])).toBe('Release (4)');
    expect(cloneName('研究', ['研究 (2)'])).toBe('研究 (3)');
    expect(cloneName('🚀', [])).toBe('🚀 (2)');
  });
});
