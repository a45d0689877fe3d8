import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { batchTargetChoices } from '@/server/batches/targets';
import { makeAgents, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

describe('batchTargetChoices: what /batches/new offers to run a list with', () => {
  it('lists the owner’s agents by name and each team’s members in roster order, never another owner’s', async () => {
    const alice = await makeUser('alice');
    const eve = await makeUser('eve');
    await makeAgents(alice.id, ['Writer', '研究者 🔬', 'Analyst']);
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    await makeAgents(eve.id, ['Eve agent']);
    await makeTeam(eve.id, ['Spy']);

    const choices = await batchTargetChoices(alice.id);
    expect(choices.agents.map((a) => a.name)).toEqual(['Analyst', ...team.members.map((m) => m.agentName).sort(), 'Writer', '研究者 🔬']);
    expect(choices.teams).toEqual([
      { teamId: team.id, name: team.name, members: team.members.map((m) => ({ kind: 'member', teamId: team.id, memberId: m.id, name: m.name })) },
    ]);
    // What must not happen: another owner's agent or team offered (and so its id sent in the page).
    expect(JSON.stringify(choices)).not.toMatch(/Eve agent|Spy/);
    expect(await batchTargetChoices(eve.id)).toMatchObject({ agents: [{ name: 'Eve agent' }, { name: expect.stringMatching(/^Spy-/) }] });
  });

  it('leaves out a member whose agent was deleted (the start would refuse it), and a team left with none', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    // The app refuses to delete a member's agent; the binding is nullable (set null) all the same, so set it here.
    const unbind = (memberId: string) => writeTx((tx) => tx.update(schema.teamMembers).set({ agentId: null }).where(eq(schema.teamMembers.id, memberId)));
    await unbind(team.members[0]!.id);
    expect((await batchTargetChoices(alice.id)).teams).toEqual([
      { teamId: team.id, name: team.name, members: [expect.objectContaining({ memberId: team.members[1]!.id })] },
    ]);
    await unbind(team.members[1]!.id);
    expect((await batchTargetChoices(alice.id)).teams).toEqual([]);
  });
});
