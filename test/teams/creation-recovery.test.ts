import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as teamRoute from '@/app/api/v1/teams/[id]/route';
import * as reconnectRoute from '@/app/api/v1/teams/[id]/reconnect/route';
import { TEAM_STATUS_BADGE } from '@/components/teams/feed';
import type { TeamStatus } from '@/lib/types/team';
import { getDb, schema, writeTx } from '@/server/db';
import { finishTeamCreations } from '@/server/teams/lifecycle';
import { mentionTargets } from '@/server/teams/mentions';
import { sendRequest } from '@/server/teams/requests';
import { getTeam } from '@/server/teams/teams';
import { makeUser } from '../support/users';
import { call, makeAgents } from '../support/teams';

/**
 * Bug 4: a crash between the team row (with its roster) and the member conversations left the team 'creating'
 * until someone pressed Reconnect. Start-up now finishes it. And the only team statuses the UI can show are the
 * two that code can produce.
 */

const db = () => getDb();
const conversationsOf = async (ownerId: string) => await db().select().from(schema.conversations).where(eq(schema.conversations.ownerId, ownerId));

/** The state createTeam's first transaction leaves when the process dies before the member conversations. */
async function teamAtCrashPoint(ownerId: string, agents: Array<{ id: string; name: string }>, status: 'creating' | 'disconnected' = 'creating') {
  const teamId = crypto.randomUUID();
  await writeTx(async (tx) => {
    await tx.insert(schema.teams).values({ id: teamId, ownerId, requestId: crypto.randomUUID(), name: `Crashed ${teamId.slice(0, 4)}`, goal: 'Finish me', status, updatedAt: new Date() });
    await tx
      .insert(schema.teamMembers)
      .values(agents.map((a, i) => ({ id: crypto.randomUUID(), teamId, agentId: a.id, agentName: a.name, name: a.name, position: i })));
  });
  return teamId;
}

describe('team creation after a crash', () => {
  it('stays "creating" (and unusable) at the crash point; start-up finishes it with one conversation per member, bound to its agent', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['Lead', 'Helper', 'Critic'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const teamId = await teamAtCrashPoint(alice.id, agents);

    expect((await getTeam(alice.id, teamId)).status).toBe('creating');
    expect((await mentionTargets(alice.id)).filter((t) => t.teamId === teamId)).toHaveLength(0);
    const firstMember = (await getTeam(alice.id, teamId)).members[0]!;
    await expect(sendRequest(alice.id, teamId, { memberIds: [firstMember.id], text: 'hi', draftKey: 'd' })).rejects.toThrow(
      expect.objectContaining({ status: 409, code: 'team_not_ready' }),
    );
    const shown = await call(teamRoute.GET, { headers: alice.auth, params: { id: teamId } });
    expect(shown.body).toMatchObject({ status: 'creating' });

    expect(await finishTeamCreations()).toContain(teamId);

    const team = await getTeam(alice.id, teamId);
    expect(team.status).toBe('ready');
    const byId = new Map((await conversationsOf(alice.id)).map((c) => [c.id, c]));
    expect(team.members.map((m) => byId.get(m.conversationId!)?.agentId)).toEqual(agents.map((a) => a.id));
    expect(new Set(team.members.map((m) => m.conversationId)).size).toBe(3);
    expect((await mentionTargets(alice.id)).filter((t) => t.teamId === teamId)).toHaveLength(3);

    // A second start-up changes nothing: no team to finish, no extra conversation.
    expect(await finishTeamCreations()).not.toContain(teamId);
    expect(await conversationsOf(alice.id)).toHaveLength(3);
  });

  it('keeps a member conversation created before the crash and creates only the missing ones', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['One', 'Two'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const teamId = await teamAtCrashPoint(alice.id, agents);
    // The first member's conversation had been committed.
    const first = (await getTeam(alice.id, teamId)).members[0]!;
    const existingId = crypto.randomUUID();
    await writeTx((tx) => tx.insert(schema.conversations).values({ id: existingId, ownerId: alice.id, agentId: agents[0]!.id, agentName: agents[0]!.name, title: 'kept', updatedAt: new Date() }));
    await writeTx((tx) => tx.update(schema.teamMembers).set({ conversationId: existingId }).where(eq(schema.teamMembers.id, first.id)));

    await finishTeamCreations();
    const team = await getTeam(alice.id, teamId);
    expect(team.status).toBe('ready');
    expect(team.members[0]!.conversationId).toBe(existingId);
    expect(team.members[1]!.conversationId).not.toBeNull();
    expect(await conversationsOf(alice.id)).toHaveLength(2);
  });

  it('finishes only unfinished teams, for their own owner; another owner can’t reconnect them', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const agents = await makeAgents(alice.id, ['A', 'B'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const teamId = await teamAtCrashPoint(alice.id, agents);
    const asBob = await call(reconnectRoute.POST, { method: 'POST', headers: bob.auth, params: { id: teamId } });
    expect(asBob.status).toBe(404);
    // Must not happen: bob's request creating alice's member conversations (or any for bob).
    expect(await conversationsOf(alice.id)).toHaveLength(0);
    expect(await conversationsOf(bob.id)).toHaveLength(0);
    await finishTeamCreations();
    expect(await conversationsOf(alice.id)).toHaveLength(2);
    expect(await conversationsOf(bob.id)).toHaveLength(0);
  });
});

describe('team statuses the UI can show', () => {
  it('are exactly the ones the server produces: creating and ready', async () => {
    const shown = Object.keys(TEAM_STATUS_BADGE).sort();
    expect(shown).toEqual(['creating', 'ready']);
    const statuses: Record<TeamStatus, true> = { creating: true, ready: true };
    expect(Object.keys(statuses).sort()).toEqual(shown);
  });

  it('reads a legacy "disconnected" row (never written by this code) as creating, and start-up finishes it', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['X', 'Y'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const teamId = await teamAtCrashPoint(alice.id, agents, 'disconnected');
    const listed = await call(teamRoute.GET, { headers: alice.auth, params: { id: teamId } });
    expect(listed.body.status).toBe('creating');
    expect(listed.body).not.toHaveProperty('disconnectReason');
    await finishTeamCreations();
    expect((await getTeam(alice.id, teamId)).status).toBe('ready');
  });

  it('Reconnect finishes a creating team too (the Manage menu offers it only then)', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['P', 'Q'].map((n) => `${n}-${crypto.randomUUID().slice(0, 4)}`));
    const teamId = await teamAtCrashPoint(alice.id, agents);
    const reconnected = await call(reconnectRoute.POST, { method: 'POST', headers: alice.auth, params: { id: teamId } });
    expect(reconnected.status).toBe(200);
    expect(reconnected.body).toMatchObject({ status: 'ready' });
  });
});
