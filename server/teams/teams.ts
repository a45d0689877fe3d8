import 'server-only';
import crypto from 'node:crypto';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { deriveMemberNames } from '@/lib/member-names';
import type { CreateTeamInput } from '@/lib/schemas/team';
import type { ApiTeam, ApiTeamSummary, MemberStatus } from '@/lib/types/team';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import type { Team, TeamMember } from '@/server/db/schema';
import { assertConversationQuota } from '@/server/agents/quotas';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { teamBudgetViews } from './budget-view';
import { touchTeam } from './revision';
import { toApiTeam, toApiTeamSummary, type JobCounts } from './serialize';

/** The owner's team, or 404 (another owner's team is indistinguishable from a missing one). */
export function requireTeam(ownerId: string, teamId: string, db: Db = getDb()): Team {
  const team = db
    .select()
    .from(schema.teams)
    .where(and(eq(schema.teams.id, teamId), eq(schema.teams.ownerId, ownerId)))
    .get();
  if (!team) throw notFound('Team');
  return team;
}

export function teamMembers(teamId: string, db: Db = getDb()): TeamMember[] {
  return db.select().from(schema.teamMembers).where(eq(schema.teamMembers.teamId, teamId)).orderBy(asc(schema.teamMembers.position)).all();
}

/**
 * Create a team from 2–8 of the owner's agents. Idempotent by requestId: a retry returns the same team.
 * The team and its roster are written in one transaction; member conversations are then ensured and the
 * team becomes ready only when every member has one (an interrupted creation is finished by reconnect).
 */
export function createTeam(ownerId: string, input: CreateTeamInput): { team: ApiTeam; created: boolean } {
  const outcome = writeTx((tx) => {
    const existing = tx
      .select()
      .from(schema.teams)
      .where(and(eq(schema.teams.ownerId, ownerId), eq(schema.teams.requestId, input.requestId)))
      .get();
    if (existing) return { teamId: existing.id, created: false };

    const count = tx.$client.prepare('select count(*) as n from teams where owner_id = ?').get(ownerId) as { n: number };
    if (count.n >= LIMITS.team.perOwner) {
      throw new AppError(409, 'team_limit', `Team limit reached (${LIMITS.team.perOwner})`);
    }
    const agentRows = tx
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(and(eq(schema.agents.ownerId, ownerId), inArray(schema.agents.id, input.agentIds)))
      .all();
    const byId = new Map(agentRows.map((a) => [a.id, a]));
    const missing = input.agentIds.filter((id) => !byId.has(id));
    if (missing.length) throw validationError({ agentIds: `Unknown agent: ${missing.join(', ')}` });

    const agentsInOrder = input.agentIds.map((id) => byId.get(id)!);
    // Every member gets a conversation: the team is refused whole, before anything is written, if they don't fit.
    assertConversationQuota(tx, ownerId, agentsInOrder.length);
    const names = deriveMemberNames(agentsInOrder.map((a) => a.name));
    const teamId = crypto.randomUUID();
    const now = new Date();
    tx.insert(schema.teams)
      .values({ id: teamId, ownerId, requestId: input.requestId, name: input.name.trim(), goal: input.goal.trim(), status: 'creating', tokenBudget: input.tokenBudget ?? null, updatedAt: now })
      .run();
    tx.insert(schema.teamMembers)
      .values(
        agentsInOrder.map((a, i) => ({
          id: crypto.randomUUID(),
          teamId,
          agentId: a.id,
          agentName: a.name,
          name: names[i]!,
          position: i,
        })),
      )
      .run();
    return { teamId, created: true };
  });
  ensureMemberConversations(ownerId, outcome.teamId);
  return { team: getTeam(ownerId, outcome.teamId), created: outcome.created };
}

/**
 * Give every member without a conversation a new one bound to its recorded agent, then mark the team ready.
 * Existing conversations are never replaced. Used by creation, reconnect and start-up recovery.
 */
export function ensureMemberConversations(ownerId: string, teamId: string): void {
  const team = requireTeam(ownerId, teamId);
  for (const member of teamMembers(teamId)) {
    if (member.conversationId) continue;
    writeTx((tx) => {
      const fresh = tx.select().from(schema.teamMembers).where(eq(schema.teamMembers.id, member.id)).get();
      if (!fresh || fresh.conversationId) return;
      const conversationId = crypto.randomUUID();
      const now = new Date();
      tx.insert(schema.conversations)
        .values({ id: conversationId, ownerId, agentId: fresh.agentId, agentName: fresh.agentName, title: `${team.name} · ${fresh.name}`, updatedAt: now })
        .run();
      tx.update(schema.teamMembers).set({ conversationId }).where(eq(schema.teamMembers.id, member.id)).run();
    });
  }
  writeTx((tx) => {
    const unbound = tx.$client
      .prepare('select count(*) as n from team_members where team_id = ? and conversation_id is null')
      .get(teamId) as { n: number };
    if (unbound.n > 0) return;
    tx.update(schema.teams).set({ status: 'ready' }).where(eq(schema.teams.id, teamId)).run();
    touchTeam(tx, teamId, []);
  });
}

export function listTeams(ownerId: string): ApiTeamSummary[] {
  const db = getDb();
  const rows = db.select().from(schema.teams).where(eq(schema.teams.ownerId, ownerId)).orderBy(desc(schema.teams.createdAt), desc(schema.teams.id)).all();
  if (!rows.length) return [];
  const memberCounts = new Map(
    (db.$client
      .prepare(`select team_id as teamId, count(*) as n from team_members where team_id in (select id from teams where owner_id = ?) group by team_id`)
      .all(ownerId) as Array<{ teamId: string; n: number }>).map((r) => [r.teamId, r.n]),
  );
  const counts = jobCounts(ownerId);
  const budgets = teamBudgetViews(db, ownerId, rows);
  return rows.map((t) => toApiTeamSummary(t, memberCounts.get(t.id) ?? 0, counts.get(t.id) ?? { pending: 0, waiting: 0 }, budgets.get(t.id)!));
}

export function getTeam(ownerId: string, teamId: string): ApiTeam {
  const db = getDb();
  const team = requireTeam(ownerId, teamId, db);
  const members = teamMembers(teamId, db);
  const budget = teamBudgetViews(db, ownerId, [team]).get(teamId)!;
  // The count the request limit is checked against (queue.ts), so the workspace can offer a clone at the limit.
  const requests = db.$client.prepare(`select count(*) as n from jobs where team_id = ? and kind = 'request'`).get(teamId) as { n: number };
  return toApiTeam(team, members, memberStatuses(teamId), jobCounts(ownerId, teamId).get(teamId) ?? { pending: 0, waiting: 0 }, budget, requests.n);
}

/** Unfinished and waiting job counts per team (only teams with pending work are read). */
function jobCounts(ownerId: string, teamId?: string): Map<string, JobCounts> {
  const rows = getDb()
    .$client.prepare(
      `select j.team_id as teamId,
              sum(case when j.status in ('queued','running','waiting_input','resuming','cancelling') then 1 else 0 end) as pending,
              sum(case when j.status = 'waiting_input' then 1 else 0 end) as waiting
         from teams t join jobs j on j.team_id = t.id
        where t.owner_id = ? and t.has_pending = 1 ${teamId ? 'and t.id = ?' : ''}
        group by j.team_id`,
    )
    .all(...(teamId ? [ownerId, teamId] : [ownerId])) as Array<{ teamId: string; pending: number; waiting: number }>;
  return new Map(rows.map((r) => [r.teamId, { pending: r.pending, waiting: r.waiting }]));
}

const STATUS_RANK: Record<MemberStatus, number> = { needs_input: 3, running: 2, queued: 1, ready: 0 };

/** Each member's badge: Needs input > Running > Queued > Ready, from its unfinished jobs. */
export function memberStatuses(teamId: string): Map<string, MemberStatus> {
  const rows = getDb()
    .$client.prepare(
      `select member_id as memberId, status from jobs
        where team_id = ? and member_id is not null
          and status in ('queued','running','waiting_input','resuming','cancelling')`,
    )
    .all(teamId) as Array<{ memberId: string; status: string }>;
  const out = new Map<string, MemberStatus>();
  for (const { memberId, status } of rows) {
    const s: MemberStatus =
      status === 'waiting_input' ? 'needs_input' : status === 'running' || status === 'cancelling' ? 'running' : 'queued';
    const prev = out.get(memberId);
    if (!prev || STATUS_RANK[s] > STATUS_RANK[prev]) out.set(memberId, s);
  }
  return out;
}
