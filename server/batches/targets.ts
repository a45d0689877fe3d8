import 'server-only';
import { and, asc, desc, eq, isNotNull } from 'drizzle-orm';
import type { BatchTargetChoices } from '@/lib/types/batch';
import { readTx, schema } from '@/server/db';

/**
 * What the owner can run a batch with (/batches/new without a target): their agents by name, and their teams (newest
 * first, as the teams list) with the members in roster order. A member whose agent was deleted is left out, since the
 * start would refuse it; a team left with none is too. Read in one snapshot.
 */
export async function batchTargetChoices(ownerId: string): Promise<BatchTargetChoices> {
  return readTx(async (db) => {
    const agents = await db
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(eq(schema.agents.ownerId, ownerId))
      .orderBy(asc(schema.agents.nameKey), asc(schema.agents.id));
    const members = await db
      .select({ teamId: schema.teams.id, teamName: schema.teams.name, memberId: schema.teamMembers.id, name: schema.teamMembers.name })
      .from(schema.teamMembers)
      .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
      .where(and(eq(schema.teams.ownerId, ownerId), isNotNull(schema.teamMembers.agentId)))
      .orderBy(desc(schema.teams.createdAt), desc(schema.teams.id), asc(schema.teamMembers.position));
    const teams = new Map<string, BatchTargetChoices['teams'][number]>();
    for (const m of members) {
      const team = teams.get(m.teamId) ?? { teamId: m.teamId, name: m.teamName, members: [] };
      team.members.push({ kind: 'member', teamId: m.teamId, memberId: m.memberId, name: m.name });
      teams.set(m.teamId, team);
    }
    return { agents: agents.map((a) => ({ kind: 'agent', agentId: a.id, name: a.name })), teams: [...teams.values()] };
  });
}
