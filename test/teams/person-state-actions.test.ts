import { signIn } from '../support/action-session';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const stateRoute = await import('@/app/api/v1/teams/[id]/state/route');
const { schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { call, makeTeam } = await import('../support/teams');
const { NOT_FOUND, fieldError, rowsOf } = await import('../actions/support');

const stateRows = () => rowsOf(schema.teams, schema.stateEntries);

/** The panel's doors: createStateEntryAction and updateStateEntryAction, the same functions as the routes. */
describe('state entry actions', () => {
  it('add, then edit on a stale revision: the answer is the current entry, not an error, and nothing is overwritten', async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id);
    signIn(ann);
    const created = await actions.createStateEntryAction(team.id, { requestId: 'r1', kind: 'plan', title: 'Plan A', content: 'Steps' });
    expect(created).toMatchObject({ ok: true, data: { entry: { title: 'Plan A', revision: 1, createdBy: { name: 'You' } } } });
    if (!created.ok) throw new Error('unreachable');
    // The API then lists exactly what the action answered.
    const listed = await call(stateRoute.GET, { headers: ann.auth, params: { id: team.id } });
    expect((listed.body.entries as unknown[])[0]).toEqual(JSON.parse(JSON.stringify(created.data.entry)));

    const id = created.data.entry.id;
    const edited = await actions.updateStateEntryAction(team.id, id, { expectedRevision: 1, title: 'Plan B' });
    expect(edited).toMatchObject({ ok: true, data: { updated: true, entry: { title: 'Plan B', revision: 2 } } });
    const before = await stateRows();
    const stale = await actions.updateStateEntryAction(team.id, id, { expectedRevision: 1, title: 'Plan C' });
    expect(stale).toMatchObject({ ok: true, data: { updated: false, entry: { title: 'Plan B', revision: 2 } } });
    expect(await stateRows()).toEqual(before);
  });

  it('refuses a title one past the limit with the field named, and another owner’s ids as not found, changing nothing', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(ann.id);
    signIn(ann);
    const created = await actions.createStateEntryAction(team.id, { requestId: 'r1', kind: 'finding', title: 'Mine', content: '' });
    if (!created.ok) throw new Error('create failed');
    const before = await stateRows();
    expect(await actions.createStateEntryAction(team.id, { requestId: 'r2', kind: 'finding', title: '😀'.repeat(41), content: '' })).toMatchObject(fieldError('title'));
    signIn(bob);
    expect(await actions.createStateEntryAction(team.id, { requestId: 'r3', kind: 'finding', title: 'Planted', content: '' })).toMatchObject(NOT_FOUND);
    expect(await actions.updateStateEntryAction(team.id, created.data.entry.id, { expectedRevision: 1, status: 'archived' })).toMatchObject(NOT_FOUND);
    // A non-string id is no id.
    expect(await actions.updateStateEntryAction({ id: team.id }, created.data.entry.id, { expectedRevision: 1, status: 'archived' })).toMatchObject(NOT_FOUND);
    expect(await stateRows()).toEqual(before);
  });
});
