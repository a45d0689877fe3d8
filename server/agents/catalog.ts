import 'server-only';
import crypto from 'node:crypto';
import { and, asc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { agentCreateSchema, agentPatchSchema, agentQuerySchema, type AgentCreateInput, type AgentPatchInput } from '@/lib/schemas/agent';
import { withoutMcpServers } from '@/lib/mcp/approval-rule';
import type { ApiAgent } from '@/lib/types/agent';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { isUniqueViolation } from '@/server/db/errors';
import { preparedPerConnection } from '@/server/db/prepared';
import { statement } from '@/server/db/statement';
import type { Agent, AgentMcpTools, AllowedSubagents } from '@/server/db/schema';
import { AppError, badRequest, notFound, validationError } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validation';
import { assertMcpApprovals, assertUsableMcpServers, unusableMcpServerIds, unusableMcpServers } from '@/server/mcp/tool-group/selection-check';
import { assertOwnSkills } from '@/server/skills/skills';
import { assertAgentQuota } from './quotas';

/**
 * The Custom Agent catalog: every read and write of the agents table goes through here, scoped by owner.
 * Another owner's agent answers exactly like a missing one (404). Inputs are validated here too, so every
 * door (route handler, server action, seed script) keeps the same rules.
 */

const { agents } = schema;

/** The key that makes names unique per owner regardless of case (stored in agents.name_key). */
export function agentNameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

/** The teams (by name) that have the agent as a member. */
const teamsUsingAgent = statement(
  `select distinct t.name from team_members m join teams t on t.id = m.team_id where m.agent_id = ? order by t.name`,
);

/** `name` is the agent that holds it, as stored: "writer" refused beside "Writer" says "Writer". */
const nameTaken = (name: string) => {
  const message = `You already have an agent named "${name}" (names are compared without case)`;
  return new AppError(409, 'name_taken', message, { name: message });
};

/** LIKE pattern that matches `text` literally anywhere: \, % and _ are escaped (paired with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The owner's agents ordered by name; with a query, only those whose name or description contains it.
 * Names match case-insensitively through the lower-cased name key; descriptions through lower() on both sides
 * (SQLite's folds ASCII letters only, as its LIKE does; Postgres's LIKE folds nothing, its lower() every letter).
 */
export async function listAgents(ownerId: string, query?: string | null): Promise<Agent[]> {
  const parsed = agentQuerySchema.safeParse(query ?? '');
  if (!parsed.success) throw badRequest('invalid_query', `query: ${parsed.error.issues[0]?.message ?? 'Invalid search text'}`);
  const q = parsed.data;
  const owned = eq(agents.ownerId, ownerId);
  const where = q
    ? and(
        owned,
        or(
          sql`${agents.nameKey} like ${containsPattern(agentNameKey(q))} escape '\\'`,
          sql`lower(${agents.description}) like lower(${containsPattern(q)}) escape '\\'`,
        ),
      )
    : owned;
  return getDb().select().from(agents).where(where).orderBy(asc(agents.nameKey));
}

// Read on every run (its delegation settings and offer list): prepared once per connection (server/db/prepared.ts).
const ownersAgent = preparedPerConnection((db) =>
  db
    .select()
    .from(agents)
    .where(and(eq(agents.id, sql.placeholder('id')), eq(agents.ownerId, sql.placeholder('ownerId'))))
    .prepare(),
);

/** The owner's agent, or null when it does not exist or belongs to someone else. */
export async function findAgent(ownerId: string, id: string, db: Db = getDb()): Promise<Agent | null> {
  return (await ownersAgent(db).execute({ id, ownerId }))[0] ?? null;
}

/** The owner's agent, or a 404 AppError. */
export async function getAgent(ownerId: string, id: string): Promise<Agent> {
  const row = await findAgent(ownerId, id);
  if (!row) throw notFound('Agent');
  return row;
}

/** The owner's agent with this name (compared without case), or null. */
export async function findAgentByName(ownerId: string, name: string, db: Db = getDb()): Promise<Agent | null> {
  return (await db.select().from(agents).where(and(eq(agents.ownerId, ownerId), eq(agents.nameKey, agentNameKey(name)))).limit(1))[0] ?? null;
}

/**
 * Create an agent; 422 for invalid input, 409 `name_taken` when the owner already uses the name, 409 `agent_limit`
 * when the owner has LIMITS.quotas.agentsPerAccount agents.
 */
export async function createAgent(ownerId: string, input: AgentCreateInput): Promise<Agent> {
  const data = parseOrThrow(agentCreateSchema, input);
  assertMcpApprovals(data.approvalTools, data.mcpTools);
  const now = new Date();
  const row = {
    id: crypto.randomUUID(),
    ownerId,
    ...data,
    nameKey: agentNameKey(data.name),
    createdAt: now,
    updatedAt: now,
  };
  return uniqueName(data.name, () =>
    writeTx(async (tx) => {
      const taken = await findAgentByName(ownerId, data.name, tx);
      if (taken) throw nameTaken(taken.name);
      await assertOwnSubagents(tx, ownerId, data.allowedSubagents);
      await assertOwnSkills(tx, ownerId, data.skills);
      // In the writing transaction: a server deleted meanwhile (which takes itself out of agents) can't be written.
      await assertUsableMcpServers(ownerId, data.mcpTools);
      await assertAgentQuota(tx, ownerId);
      await tx.insert(agents).values(row);
      return (await findAgent(ownerId, row.id, tx))!;
    }),
  );
}

/** Change some fields of the owner's agent; absent fields keep their value. An empty patch changes nothing. */
export async function updateAgent(ownerId: string, id: string, patch: AgentPatchInput): Promise<Agent> {
  const data = parseOrThrow(agentPatchSchema, patch);
  const changes = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as Partial<typeof agents.$inferInsert>;
  return uniqueName(data.name ?? '', () =>
    writeTx(async (tx) => {
      const current = await findAgent(ownerId, id, tx);
      if (!current) throw notFound('Agent');
      if (Object.keys(changes).length === 0) return current;
      if (data.allowedSubagents !== undefined) await assertOwnSubagents(tx, ownerId, data.allowedSubagents);
      if (data.skills !== undefined) await assertOwnSkills(tx, ownerId, data.skills);
      const set: Partial<typeof agents.$inferInsert> = { ...changes, updatedAt: new Date() };
      if (data.mcpTools !== undefined) Object.assign(set, await checkedMcpSelection(ownerId, current, data.mcpTools, data.approvalTools));
      if (set.approvalTools !== undefined || set.mcpTools !== undefined) assertMcpApprovals(set.approvalTools ?? current.approvalTools, set.mcpTools ?? current.mcpTools);
      if (data.name !== undefined) {
        const key = agentNameKey(data.name);
        const [clash] = await tx
          .select({ name: agents.name })
          .from(agents)
          .where(and(eq(agents.ownerId, ownerId), eq(agents.nameKey, key), ne(agents.id, id)))
          .limit(1);
        if (clash) throw nameTaken(clash.name);
        set.nameKey = key;
      }
      await tx.update(agents).set(set).where(and(eq(agents.id, id), eq(agents.ownerId, ownerId)));
      return (await findAgent(ownerId, id, tx))!;
    }),
  );
}

/**
 * Delete the owner's agent. Its conversations stay readable: the schema sets conversations.agent_id to null
 * and each conversation keeps the agent's name.
 */
export async function deleteAgent(ownerId: string, id: string): Promise<void> {
  await writeTx(async (tx) => {
    const current = await findAgent(ownerId, id, tx);
    if (!current) throw notFound('Agent');
    // A team member is bound to its agent: refuse while a team uses it (checked in this transaction, so a team
    // can't adopt the agent between the check and the delete).
    const teamsUsing = await teamsUsingAgent.all<{ name: string }>(id);
    if (teamsUsing.length) {
      const names = teamsUsing.map((t) => `"${t.name}"`).join(', ');
      throw new AppError(409, 'agent_in_team', `This agent is a member of ${names}; delete ${teamsUsing.length === 1 ? 'that team' : 'those teams'} first`);
    }
    await tx.delete(agents).where(and(eq(agents.id, id), eq(agents.ownerId, ownerId)));
  });
}

/**
 * A patch's MCP selection, checked in the writing transaction. A server the owner can't use is refused at `mcpTools`,
 * naming it — unless the agent already holds it: an agent that still names a server deleted before deletes took
 * themselves out of agents was answered that way by the API, so sending it back takes the server (and its approval
 * rules) out rather than refusing what the API returned.
 */
async function checkedMcpSelection(
  ownerId: string,
  current: Agent,
  mcpTools: AgentMcpTools,
  approvalTools: string[] | undefined,
): Promise<{ mcpTools: AgentMcpTools; approvalTools?: string[] }> {
  const unusable = await unusableMcpServerIds(ownerId, mcpTools);
  if (!unusable.length) return { mcpTools };
  const held = new Set(current.mcpTools.map((s) => s.serverId));
  const unknown = unusable.filter((serverId) => !held.has(serverId));
  if (unknown.length) throw unusableMcpServers(unknown);
  return withoutMcpServers(mcpTools, approvalTools ?? current.approvalTools, new Set(unusable));
}

/**
 * Every agent id in an allowedSubagents list must be one of the owner's agents (checked in the writing
 * transaction). Another owner's agent answers exactly like a missing one: a field error naming the entry, never
 * whether it exists elsewhere.
 */
async function assertOwnSubagents(tx: Db, ownerId: string, allowed: AllowedSubagents): Promise<void> {
  if (!Array.isArray(allowed) || !allowed.length) return;
  const own = new Set(
    (
      await tx
        .select({ id: agents.id })
        .from(agents)
        .where(and(eq(agents.ownerId, ownerId), inArray(agents.id, allowed)))
    ).map((r) => r.id),
  );
  const unknown = allowed.filter((id) => !own.has(id));
  if (unknown.length) throw validationError({ allowedSubagents: `Not one of your agents: ${unknown.slice(0, 3).join(', ')}` });
}

/** The API shape of an agent row. */
export function toApiAgent(row: Agent): ApiAgent {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    model: row.model,
    toolGroups: [...row.toolGroups],
    approvalTools: [...row.approvalTools],
    mcpTools: row.mcpTools.map((s) => ({ serverId: s.serverId, tools: s.tools === 'all' ? 'all' : [...s.tools] })),
    skills: [...(row.skills ?? [])],
    maxTurns: row.maxTurns,
    timeLimitMinutes: row.timeLimitMinutes ?? null,
    compactAtTokens: row.compactAtTokens ?? null,
    tokenBudget: row.tokenBudget ?? null,
    allowedSubagents: Array.isArray(row.allowedSubagents) ? [...row.allowedSubagents] : row.allowedSubagents === 'none' ? 'none' : 'all',
    maxDepth: row.maxDepth,
    maxChildren: row.maxChildren,
    maxConcurrentChildren: row.maxConcurrentChildren,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The unique index is the last word on names: a write that loses a race still answers 409, not 500. */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
}

