import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { runContext } from '@/server/agents/tools/registry';
import { getDb, schema, type Db } from '@/server/db';
import type { Job, Team, TeamMember } from '@/server/db/schema';

export const NOT_A_MEMBER = 'This tool is only available inside a team member conversation';

/** A tool error the model sees as the tool's result (ToolNode turns thrown errors into tool messages). */
export class TeamToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TeamToolError';
  }
}

export type Caller = { team: Team; member: TeamMember; conversationId: string; ownerId: string };

/**
 * Who is calling a team tool: taken from the run's server-owned context (owner and conversation), never from
 * the model's arguments. Only a current member conversation of one of the owner's teams qualifies.
 */
export async function resolveCaller(config: RunnableConfig | undefined, db: Db = getDb()): Promise<Caller> {
  let ctx;
  try {
    ctx = runContext(config);
  } catch {
    throw new TeamToolError(NOT_A_MEMBER);
  }
  const [row] = await db
    .select({ member: schema.teamMembers, team: schema.teams })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teamMembers.conversationId, ctx.conversationId), eq(schema.teams.ownerId, ctx.ownerId)))
    .limit(1);
  if (!row) throw new TeamToolError(NOT_A_MEMBER);
  return { team: row.team, member: row.member, conversationId: ctx.conversationId, ownerId: ctx.ownerId };
}

/**
 * The team request the calling conversation is executing now: its first admitted, unfinished job that is
 * not waiting for input. Later queued requests never change this; null outside a team request.
 */
export async function executingJob(conversationId: string, db: Db = getDb()): Promise<Job | null> {
  const [job] = await db
    .select()
    .from(schema.jobs)
    .where(and(eq(schema.jobs.conversationId, conversationId), inArray(schema.jobs.status, ['running', 'cancelling'])))
    .orderBy(asc(schema.jobs.seq))
    .limit(1);
  return job ?? null;
}
