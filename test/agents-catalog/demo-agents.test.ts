import { describe, expect, it } from 'vitest';
import { agentCreateSchema } from '@/lib/schemas/agent';
import { createAgent, listAgents, updateAgent } from '@/server/agents/catalog';
import { DEMO_AGENTS, seedDemoAgents } from '@/server/agents/demo-agents';
import { makeUser } from '../support/users';

describe('demo agents', () => {
  it('are three valid scripted agents: Researcher, Reviewer, Writer', async () => {
    expect(DEMO_AGENTS.map((a) => a.name)).toEqual(['Researcher', 'Reviewer', 'Writer']);
    for (const def of DEMO_AGENTS) {
      expect(agentCreateSchema.parse(def)).toEqual(def);
      expect(def).toMatchObject({ model: 'scripted', toolGroups: [] });
      expect(def.description.length).toBeGreaterThan(20);
      expect(def.instructions.length).toBeGreaterThan(20);
    }
  });

  it('are seeded once per owner, even when the seed runs again', async () => {
    const demo = await makeUser('demo');
    const first = await seedDemoAgents(demo.id);
    expect(first.map((a) => a.name)).toEqual(['Researcher', 'Reviewer', 'Writer']);
    const second = await seedDemoAgents(demo.id);
    expect(second.map((a) => a.id)).toEqual(first.map((a) => a.id));
    expect(await listAgents(demo.id)).toHaveLength(3);
  });

  it('keep an agent the owner already has under that name (any case) as it is', async () => {
    const demo = await makeUser('demo');
    const mine = await createAgent(demo.id, { name: 'writer', instructions: 'my own' });
    const seeded = await seedDemoAgents(demo.id);
    expect(seeded.find((a) => a.nameKey === 'writer')).toEqual(mine);
    const edited = await updateAgent(demo.id, seeded[0]!.id, { description: 'edited by me' });
    await seedDemoAgents(demo.id);
    expect((await listAgents(demo.id)).find((a) => a.id === edited.id)?.description).toBe('edited by me');
    expect(await listAgents(demo.id)).toHaveLength(3);
  });

  it('are seeded per owner', async () => {
    const a = await makeUser('a');
    const b = await makeUser('b');
    await seedDemoAgents(a.id);
    expect(await listAgents(b.id)).toEqual([]);
    await seedDemoAgents(b.id);
    expect(await listAgents(a.id)).toHaveLength(3);
    expect(await listAgents(b.id)).toHaveLength(3);
  });
});
