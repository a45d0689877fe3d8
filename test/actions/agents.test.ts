import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/agents/actions');
const agentRoute = await import('@/app/api/v1/agents/[id]/route');
const { LIMITS } = await import('@/lib/limits');
const { getDb, schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { call, makeAgents } = await import('../support/teams');
const { NOT_FOUND, fieldError, rowsOf } = await import('./support');

const agentRows = () => rowsOf(schema.agents, schema.conversations);
const agentRow = async (id: string) => (await getDb().select().from(schema.agents).where(eq(schema.agents.id, id)))[0];

describe('agent actions, for the owner', () => {
  it('createAgentAction stores the agent the API would, with the same defaults, and answers its API shape', async () => {
    const alice = await makeUser('alice');
    signIn(alice);
    const created = await actions.createAgentAction({ name: 'Writer', description: 'Drafts posts' });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    expect(created.data).toMatchObject({ name: 'Writer', description: 'Drafts posts', model: 'scripted', toolGroups: [], maxTurns: LIMITS.agent.maxTurns.default });
    const got = await call(agentRoute.GET, { headers: alice.auth, params: { id: created.data.id } });
    expect(got.body).toEqual(JSON.parse(JSON.stringify(created.data)));
    expect(await agentRow(created.data.id)).toMatchObject({ ownerId: alice.id, name: 'Writer' });
    expect(await actions.createAgentAction({ name: 'WRITER' })).toMatchObject({ ok: false, error: { code: 'name_taken', fields: { name: expect.any(String) } } });
  });

  it('bounds name, description and instructions at the limit and one past, naming the field', async () => {
    const alice = await makeUser('alice');
    signIn(alice);
    let n = 0;
    for (const [field, max] of [
      ['name', LIMITS.agent.name.maxChars],
      ['description', LIMITS.agent.description.maxChars],
      ['instructions', LIMITS.agent.instructions.maxChars],
    ] as const) {
      for (const ch of ['a', '😀']) {
        n += 1;
        const input = (value: string) => (field === 'name' ? { name: value } : { name: `bounds ${n}`, [field]: value });
        const before = await rowsOf(schema.agents);
        expect(await actions.createAgentAction(input(ch.repeat(max + 1))), `${field} ${max + 1} × ${ch}`).toMatchObject(fieldError(field));
        expect(await rowsOf(schema.agents)).toBe(before);
        expect(await actions.createAgentAction(input(ch.repeat(max))), `${field} ${max} × ${ch}`).toMatchObject({ ok: true, data: { [field]: ch.repeat(max) } });
      }
    }
    expect(await actions.createAgentAction({ name: 'x', colour: 'red' })).toMatchObject(fieldError('colour', 'Unknown field'));
  });

  it('updateAgentAction changes only the given fields; deleteAgentAction removes the agent', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Writer'], { description: 'old', instructions: 'keep me' });
    signIn(alice);
    expect(await actions.updateAgentAction(agent!.id, { description: 'new' })).toMatchObject({ ok: true, data: { description: 'new', instructions: 'keep me' } });
    expect(await agentRow(agent!.id)).toMatchObject({ description: 'new', instructions: 'keep me', name: 'Writer' });
    expect(await actions.updateAgentAction(agent!.id, { maxTurns: 0 })).toMatchObject(fieldError('maxTurns'));
    expect((await agentRow(agent!.id))!.maxTurns).toBe(LIMITS.agent.maxTurns.default);
    expect(await actions.deleteAgentAction(agent!.id)).toEqual({ ok: true, data: null });
    expect(await agentRow(agent!.id)).toBeUndefined();
    expect(await actions.deleteAgentAction(agent!.id)).toMatchObject(NOT_FOUND);
  });

  it('startConversationAction opens a conversation with the agent', async () => {
    const alice = await makeUser('alice');
    const [agent] = await makeAgents(alice.id, ['Writer']);
    signIn(alice);
    const started = await actions.startConversationAction(agent!.id);
    if (!started.ok) throw new Error(JSON.stringify(started.error));
    expect(started.data).toMatchObject({ agentId: agent!.id });
    const [row] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, started.data.id));
    expect(row).toMatchObject({ ownerId: alice.id, agentId: agent!.id });
  });
});

describe('agent actions, for anyone else', () => {
  type Action = (...args: unknown[]) => Promise<unknown>;
  async function fixtures() {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const [agent] = await makeAgents(alice.id, ['Writer']);
    return { alice, bob, agent: agent! };
  }
  const argsFor = (f: Awaited<ReturnType<typeof fixtures>>): Record<string, unknown[]> => ({
    createAgentAction: [{ name: 'Fresh' }],
    updateAgentAction: [f.agent.id, { name: 'Stolen' }],
    deleteAgentAction: [f.agent.id],
    startConversationAction: [f.agent.id],
  });

  it("another owner's agent answers not_found from every action that names one, and nothing changes", async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    expect(Object.keys(actions).sort()).toEqual(Object.keys(cases).sort());
    signIn(f.bob);
    for (const name of ['updateAgentAction', 'deleteAgentAction', 'startConversationAction']) {
      const before = await agentRows();
      expect(await (actions[name as keyof typeof actions] as Action)(...cases[name]!), name).toMatchObject(NOT_FOUND);
      expect(await agentRows(), `${name} changed state`).toBe(before);
    }
  });

  it('signed out, every action answers unauthorized and nothing changes', async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await agentRows();
      expect(await action(...cases[name]!), name).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
      expect(await agentRows(), `${name} changed state`).toBe(before);
    }
  });
});
