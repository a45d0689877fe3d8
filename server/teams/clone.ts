import 'server-only';
import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { CloneTeamInput } from '@/lib/schemas/team-settings';
import { cloneName } from '@/lib/team-clone-name';
import type { ApiTeam } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { assertConversationQuota } from '@/server/agents/quotas';
import { AppError } from '@/server/http/errors';
import { assertTeamNameFree, teamNamesOf } from './team-name';
import { ensureMemberConversations, getTeam, requireTeam, teamMembers } from './teams';

const teamCount = statement('select count(*) as n from teams where owner_id = ?');

/**
 * A new team with the source's roster (same agents, member names and order), goal and token budget, and none of
 * its history: no requests (so the full request capacity), no state, no shared record; cloned_from_team_id links
 * it to the source. Each member gets a fresh conversation, as at creation. Idempotent by requestId: the same id
 * again answers the same clone; an id already used for another team is refused. The source is left as it is.
 */
export async function cloneTeam(ownerId: string, sourceId: string, input: CloneTeamInput): Promise<{ team: ApiTeam; created: boolean }> {
  const outcome = await writeTx(async (tx) => {
    const source = await requireTeam(ownerId, sourceId, tx);
    const [existing] = await tx
      .select()
      .from(schema.teams)
      .where(and(eq(schema.teams.ownerId, ownerId), eq(schema.teams.requestId, input.requestId)))
      .limit(1);
    if (existing) {
      if (existing.clonedFromTeamId !== sourceId) throw new AppError(409, 'request_key_reused', 'This request id was already used for a different team');
      return { teamId: existing.id, created: false };
    }
    const count = (await teamCount.get<{ n: number }>(ownerId))!;
    if (count.n >= LIMITS.team.perOwner) throw new AppError(409, 'team_limit', `Team limit reached (${LIMITS.team.perOwner})`);

    const members = await teamMembers(sourceId, tx);
    // Agents in a team can't be deleted, but a member whose agent is gone has nothing to run: refuse, don't drop it.
    const agentIds = members.map((m) => m.agentId).filter((id): id is string => id !== null);
    const agents = agentIds.length
      ? await tx
          .select({ id: schema.agents.id, name: schema.agents.name })
          .from(schema.agents)
          .where(and(eq(schema.agents.ownerId, ownerId), inArray(schema.agents.id, agentIds)))
      : [];
    const agentName = new Map(agents.map((a) => [a.id, a.name]));
    if (members.some((m) => m.agentId === null || !agentName.has(m.agentId))) {
      throw new AppError(409, 'member_agent_missing', 'A member of this team has no agent any more; create a new team instead');
    }
    await assertConversationQuota(tx, ownerId, members.length);

    // Without a name, the first free "<name> (n)"; a name given must be free.
    const name = input.name?.trim() ?? cloneName(source.name, await teamNamesOf(ownerId));
    await assertTeamNameFree(ownerId, name);
    const teamId = crypto.randomUUID();
    await tx.insert(schema.teams).values({
        id: teamId,
        ownerId,
        requestId: input.requestId,
        name,
        goal: source.goal,
        status: 'creating',
        tokenBudget: source.tokenBudget,
        moneyBudgetNanos: source.moneyBudgetNanos,
        clonedFromTeamId: sourceId,
        updatedAt: new Date(),
      });
    await tx.insert(schema.teamMembers).values(
        members.map((m) => ({
          id: crypto.randomUUID(),
          teamId,
          agentId: m.agentId,
          agentName: agentName.get(m.agentId!)!,
          name: m.name,
          position: m.position,
        })),
    );
    return { teamId, created: true };
  });
  await ensureMemberConversations(ownerId, outcome.teamId);
  return { team: await getTeam(ownerId, outcome.teamId), created: outcome.created };
}
