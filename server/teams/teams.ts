import 'server-only';
import crypto from 'node:crypto';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { deriveMemberNames } from '@/lib/member-names';
import type { CreateTeamData } from '@/lib/schemas/team';
import type { ApiTeam, ApiTeamSummary, MemberStatus } from '@/lib/types/team';
import { getDb, readTx, schema, writeTx, type Db } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';
import { UNFINISHED_JOB_PREDICATE, type Team, type TeamMember } from '@/server/db/schema';
import { assertConversationQuota } from '@/server/agents/quotas';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { teamBudgetViews } from './budget-view';
import { touchTeam } from './revision';
import { assertTeamNameFree } from './team-name';
import { toApiTeam, toApiTeamSummary, type JobCounts } from './serialize';

const teamCount = statement('select count(*) as n from teams where owner_id = ?');
const unboundMembers = statement('select count(*) as n from team_members where team_id = ? and conversation_id is null');
const memberCountsOf = statement(
  `select team_id as "teamId", count(*) as n from team_members where team_id in (select id from teams where owner_id = ?) group by team_id`,
);
const requestCount = statement(`select count(*) as n from jobs where team_id = ? and kind = 'request'`);
const JOB_COUNTS = `select j.team_id as "teamId",
              sum(case when j.${UNFINISHED_JOB_PREDICATE} then 1 else 0 end) as pending,
              sum(case when j.status = 'waiting_input' then 1 else 0 end) as waiting
         from teams t join jobs j on j.team_id = t.id
        where t.owner_id = ? and t.has_pending = 1 %TEAM%
        group by j.team_id`;
const jobCountsOfOwner = statement(JOB_COUNTS.replace('%TEAM%', ''));
const jobCountsOfTeam = statement(JOB_COUNTS.replace('%TEAM%', 'and t.id = ?'));
const unfinishedByMember = statement(
  `select member_id as "memberId", status from jobs
    where team_id = ? and member_id is not null
      and ${UNFINISHED_JOB_PREDICATE}`,
);

// Read by every request sent to a team: built once per connection (server/db/prepared.ts).
const statements = preparedPerConnection((db) => ({
  ownersTeam: db
    .select()
    .from(schema.teams)
    .where(and(eq(schema.teams.id, sql.placeholder('teamId')), eq(schema.teams.ownerId, sql.placeholder('ownerId'))))
    .prepare(),
  members: db
    .select()
    .from(schema.teamMembers)
    .where(eq(schema.teamMembers.teamId, sql.placeholder('teamId')))
    .orderBy(asc(schema.teamMembers.position))
    .prepare(),
}));

/** The owner's team, or 404 (another owner's team is indistinguishable from a missing one). */
export async function requireTeam(ownerId: string, teamId: string, db: Db = getDb()): Promise<Team> {
  const [team] = await statements(db).ownersTeam.execute({ teamId, ownerId });
  if (!team) throw notFound('Team');
  return team;
}

export async function teamMembers(teamId: string, db: Db = getDb()): Promise<TeamMember[]> {
  return statements(db).members.execute({ teamId });
}

/**
 * Create a team from 2–8 of the owner's agents. Idempotent by requestId: a retry returns the same team.
 * The team and its roster are written in one transaction; member conversations are then ensured and the
 * team becomes ready only when every member has one (an interrupted creation is finished by reconnect).
 */
export async function createTeam(ownerId: string, input: CreateTeamData): Promise<{ team: ApiTeam; created: boolean }> {
  const outcome = await writeTx(async (tx) => {
    const [existing] = await tx
      .select()
      .from(schema.teams)
      .where(and(eq(schema.teams.ownerId, ownerId), eq(schema.teams.requestId, input.requestId)))
      .limit(1);
    if (existing) return { teamId: existing.id, created: false };

    const count = (await teamCount.get<{ n: number }>(ownerId))!;
    if (count.n >= LIMITS.team.perOwner) {
      throw new AppError(409, 'team_limit', `Team limit reached (${LIMITS.team.perOwner})`);
    }
    const agentRows = await tx
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(and(eq(schema.agents.ownerId, ownerId), inArray(schema.agents.id, input.agentIds)));
    const byId = new Map(agentRows.map((a) => [a.id, a]));
    const missing = input.agentIds.filter((id) => !byId.has(id));
    if (missing.length) throw validationError({ agentIds: `Unknown agent: ${missing.join(', ')}` });

    const agentsInOrder = input.agentIds.map((id) => byId.get(id)!);
    // Every member gets a conversation: the team is refused whole, before anything is written, if they don't fit.
    await assertConversationQuota(tx, ownerId, agentsInOrder.length);
    await assertTeamNameFree(ownerId, input.name);
    const names = deriveMemberNames(agentsInOrder.map((a) => a.name));
    const teamId = crypto.randomUUID();
    const now = new Date();
    await tx
      .insert(schema.teams)
      .values({ id: teamId, ownerId, requestId: input.requestId, name: input.name.trim(), goal: input.goal.trim(), status: 'creating', tokenBudget: input.tokenBudget ?? null, moneyBudgetNanos: input.moneyBudget ?? null, updatedAt: now });
    await tx.insert(schema.teamMembers).values(
        agentsInOrder.map((a, i) => ({
          id: crypto.randomUUID(),
          teamId,
          agentId: a.id,
          agentName: a.name,
          name: names[i]!,
          position: i,
        })),
    );
    return { teamId, created: true };
  });
  await ensureMemberConversations(ownerId, outcome.teamId);
  return { team: await getTeam(ownerId, outcome.teamId), created: outcome.created };
}

/**
 * Give every member without a conversation a new one bound to its recorded agent, then mark the team ready.
 * Existing conversations are never replaced. Used by creation, reconnect and start-up recovery.
 */
export async function ensureMemberConversations(ownerId: string, teamId: string): Promise<void> {
  const team = await requireTeam(ownerId, teamId);
  for (const member of await teamMembers(teamId)) {
    if (member.conversationId) continue;
    await writeTx(async (tx) => {
      const [fresh] = await tx.select().from(schema.teamMembers).where(eq(schema.teamMembers.id, member.id));
      if (!fresh || fresh.conversationId) return;
      const conversationId = crypto.randomUUID();
      const now = new Date();
      await tx
        .insert(schema.conversations)
        .values({ id: conversationId, ownerId, agentId: fresh.agentId, agentName: fresh.agentName, title: `${team.name} · ${fresh.name}`, updatedAt: now });
      await tx.update(schema.teamMembers).set({ conversationId }).where(eq(schema.teamMembers.id, member.id));
    });
  }
  await writeTx(async (tx) => {
    const unbound = (await unboundMembers.get<{ n: number }>(teamId))!;
    if (unbound.n > 0) return;
    await tx.update(schema.teams).set({ status: 'ready' }).where(eq(schema.teams.id, teamId));
    await touchTeam(tx, teamId, []);
  });
}

/** The owner's teams, read in one snapshot. */
export async function listTeams(ownerId: string): Promise<ApiTeamSummary[]> {
  return readTx(async (db) => {
    const rows = await db.select().from(schema.teams).where(eq(schema.teams.ownerId, ownerId)).orderBy(desc(schema.teams.createdAt), desc(schema.teams.id));
    if (!rows.length) return [];
    const memberCounts = new Map((await memberCountsOf.all<{ teamId: string; n: number }>(ownerId)).map((r) => [r.teamId, r.n]));
    const counts = await jobCounts(ownerId);
    const budgets = await teamBudgetViews(ownerId, rows);
    return rows.map((t) => toApiTeamSummary(t, memberCounts.get(t.id) ?? 0, counts.get(t.id) ?? { pending: 0, waiting: 0 }, budgets.get(t.id)!));
  });
}

/** The owner's team as the workspace shows it, read in one snapshot. */
export async function getTeam(ownerId: string, teamId: string): Promise<ApiTeam> {
  return readTx(async (db) => {
    const team = await requireTeam(ownerId, teamId, db);
    const members = await teamMembers(teamId, db);
    const budget = (await teamBudgetViews(ownerId, [team])).get(teamId)!;
    // The count the request limit is checked against (queue.ts), so the workspace can offer a clone at the limit.
    const requests = (await requestCount.get<{ n: number }>(teamId))!;
    const counts = (await jobCounts(ownerId, teamId)).get(teamId) ?? { pending: 0, waiting: 0 };
    return toApiTeam(team, members, await memberStatuses(teamId), counts, budget, requests.n);
  });
}

/** Unfinished and waiting job counts per team (only teams with pending work are read). */
async function jobCounts(ownerId: string, teamId?: string): Promise<Map<string, JobCounts>> {
  type Row = { teamId: string; pending: number; waiting: number };
  const rows = teamId ? await jobCountsOfTeam.all<Row>(ownerId, teamId) : await jobCountsOfOwner.all<Row>(ownerId);
  return new Map(rows.map((r) => [r.teamId, { pending: r.pending, waiting: r.waiting }]));
}

const STATUS_RANK: Record<MemberStatus, number> = { needs_input: 3, running: 2, queued: 1, ready: 0 };

/** Each member's badge: Needs input > Running > Queued > Ready, from its unfinished jobs. */
export async function memberStatuses(teamId: string): Promise<Map<string, MemberStatus>> {
  const rows = await unfinishedByMember.all<{ memberId: string; status: string }>(teamId);
  const out = new Map<string, MemberStatus>();
  for (const { memberId, status } of rows) {
    const s: MemberStatus =
      status === 'waiting_input' ? 'needs_input' : status === 'running' || status === 'cancelling' ? 'running' : 'queued';
    const prev = out.get(memberId);
    if (!prev || STATUS_RANK[s] > STATUS_RANK[prev]) out.set(memberId, s);
  }
  return out;
}
