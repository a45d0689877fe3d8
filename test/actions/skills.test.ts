import { signIn } from '../support/action-session';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/skills/actions');
const { schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { createSkill } = await import('@/server/skills/skills');
const { createAgent } = await import('@/server/agents/catalog');
const { NOT_FOUND, rowsOf } = await import('./support');

const skillRows = () => rowsOf(schema.skills, schema.skillFiles);

describe('the Skills page actions', () => {
  it('write, edit and delete the signed-in person’s skill', async () => {
    const alice = await makeUser('alice');
    signIn(alice);
    const made = await actions.createSkillAction({ name: '翻訳 🚀', description: 'Translate', body: 'Keep terms.' });
    expect(made).toMatchObject({ ok: true, data: { name: '翻訳 🚀', body: 'Keep terms.' } });
    const id = made.ok ? made.data.id : '';
    expect(await actions.updateSkillAction(id, { body: 'Keep every term.' })).toMatchObject({ ok: true, data: { body: 'Keep every term.' } });
    expect(await actions.deleteSkillAction(id)).toEqual({ ok: true, data: null });
    expect(await actions.deleteSkillAction(id)).toMatchObject(NOT_FOUND);
  });

  it('names the refused field, and refuses deleting a skill an agent uses', async () => {
    const alice = await makeUser('alice');
    signIn(alice);
    expect(await actions.createSkillAction({ name: '', description: 'd', body: '' })).toMatchObject({ ok: false, error: { fields: { name: expect.any(String) } } });
    const skill = await createSkill(alice.id, { name: 'Used', description: 'd', body: '' });
    await createAgent(alice.id, { name: 'User', skills: [skill.id] });
    expect(await actions.deleteSkillAction(skill.id)).toMatchObject({ ok: false, error: { code: 'skill_in_use' } });
  });

  it('another owner’s skill answers not_found to edit and delete, and nothing changes', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const skill = await createSkill(alice.id, { name: 'Private', description: 'd', body: 'mine' });
    const before = await skillRows();
    signIn(mallory);
    expect(await actions.updateSkillAction(skill.id, { body: 'hijacked' })).toMatchObject(NOT_FOUND);
    expect(await actions.deleteSkillAction(skill.id)).toMatchObject(NOT_FOUND);
    expect(await actions.deleteSkillAction({ id: skill.id })).toMatchObject(NOT_FOUND);
    expect(await skillRows()).toBe(before);
  });
});
