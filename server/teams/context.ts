import 'server-only';
import { and, asc, eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { jsonBytes } from '@/lib/text-bounds';
import { readTx, schema, type Db } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import { recentShared } from './shared-record';
import { teamMembers } from './teams';

export type SharedContext = {
  goal: string;
  roster: Array<{ id: string; name: string; agent: string }>;
  state: Array<{ id: string; kind: string; title: string; content: string; revision: number }>;
  recentMessages: Array<{ from: string; to: string | null; kind: string; text: string; at: string }>;
};

export const contextBytes = (ctx: SharedContext) => jsonBytes(ctx);

// Read at every admission (the job's frozen input): built once per connection (server/db/prepared.ts).
const statements = preparedPerConnection((db) => ({
  team: db.select().from(schema.teams).where(eq(schema.teams.id, sql.placeholder('teamId'))).prepare(),
  state: db
    .select()
    .from(schema.stateEntries)
    .where(and(eq(schema.stateEntries.teamId, sql.placeholder('teamId')), eq(schema.stateEntries.status, 'active')))
    .orderBy(asc(schema.stateEntries.seq))
    .prepare(),
}));

/**
 * The team's shared context: goal, roster, active public state and up to 8 recent shared messages,
 * within 24,000 bytes of UTF-8 JSON. Oldest messages are dropped first so public state survives.
 */
export async function buildSharedContext(teamId: string, db?: Db): Promise<SharedContext> {
  // Four reads, one snapshot: the given handle (an open writeTx), or a read transaction.
  return db ? readContext(teamId, db) : readTx((snapshot) => readContext(teamId, snapshot));
}

async function readContext(teamId: string, db: Db): Promise<SharedContext> {
  const q = statements(db);
  const [team] = await q.team.execute({ teamId });
  if (!team) throw new Error(`team ${teamId} not found`);
  const members = await teamMembers(teamId, db);
  const names = new Map(members.map((m) => [m.id, m.name]));
  const state = (await q.state.execute({ teamId })).map((e) => ({ id: e.id, kind: e.kind, title: e.title, content: e.content, revision: e.revision }));
  const recent = (await recentShared(teamId, db)).map((m) => ({
    from: m.senderLabel,
    to: m.recipientMemberId ? (names.get(m.recipientMemberId) ?? null) : null,
    kind: m.kind,
    text: m.text,
    at: m.createdAt.toISOString(),
  }));
  return fitContext({
    goal: team.goal,
    roster: members.map((m) => ({ id: m.id, name: m.name, agent: m.agentName })),
    state,
    recentMessages: recent,
  });
}

/** Drop the oldest recent messages until the context fits its byte budget. */
export function fitContext(ctx: SharedContext, maxBytes: number = LIMITS.sharedContext.maxBytes): SharedContext {
  const out = { ...ctx, recentMessages: [...ctx.recentMessages] };
  while (out.recentMessages.length && contextBytes(out) > maxBytes) out.recentMessages.shift();
  return out;
}
