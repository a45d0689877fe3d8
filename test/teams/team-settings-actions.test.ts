import { signIn } from '../support/action-session';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const { schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { makeTeam } = await import('../support/teams');
const { NOT_FOUND, fieldError, rowsOf } = await import('../actions/support');

const teamRows = () => rowsOf(schema.teams, schema.teamMembers, schema.conversations);

/** The workspace's doors for rename/goal and clone: the same functions as PATCH /teams/:id and POST …/clone. */
describe('team settings and clone actions', () => {
  it('renames and edits the goal; one past the name limit names the field and changes nothing', async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id);
    signIn(ann);
    expect(await actions.updateTeamSettingsAction(team.id, { name: 'Release 研', goal: 'Ship 🚀' })).toMatchObject({ ok: true, data: { name: 'Release 研', goal: 'Ship 🚀' } });
    const before = await teamRows();
    expect(await actions.updateTeamSettingsAction(team.id, { name: '🚀'.repeat(41) })).toMatchObject(fieldError('name'));
    expect(await actions.updateTeamSettingsAction(team.id, { goal: 'g'.repeat(2_001) })).toMatchObject(fieldError('goal'));
    expect(await teamRows()).toEqual(before);
  });

  it('clones once per request id, and another owner can neither rename nor clone (not found, nothing changes)', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(ann.id);
    signIn(ann);
    const first = await actions.cloneTeamAction(team.id, { requestId: 'c1' });
    const again = await actions.cloneTeamAction(team.id, { requestId: 'c1' });
    expect(first).toMatchObject({ ok: true, data: { name: `${team.name} (2)`, goal: team.goal, requestCount: 0 } });
    if (!first.ok || !again.ok) throw new Error('clone failed');
    expect(again.data.id).toBe(first.data.id);

    const before = await teamRows();
    signIn(bob);
    expect(await actions.updateTeamSettingsAction(team.id, { name: 'Taken over' })).toMatchObject(NOT_FOUND);
    expect(await actions.cloneTeamAction(team.id, { requestId: 'c2' })).toMatchObject(NOT_FOUND);
    // A non-string id is no id.
    expect(await actions.cloneTeamAction({ id: team.id }, { requestId: 'c3' })).toMatchObject(NOT_FOUND);
    expect(await teamRows()).toEqual(before);
  });
});
