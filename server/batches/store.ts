import 'server-only';
import crypto from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import type { BatchItemStatus, BatchOrigin } from '@/lib/types/batch';
import { getDb, readTx, schema, writeTx, type Db } from '@/server/db';
import type { Batch, BatchItem } from '@/server/db/schema';
import { conversationsHeld, quotas } from '@/server/agents/quotas';
import { AppError, conflict, notFound, validationError } from '@/server/http/errors';
import { batchChanged } from './changes';
import { lendCallerSlot } from './lend';

/** Who is told when the batch ends (a `batch_task` call): 'wait' the calling run waits, 'message' one message after. */
export type BatchCaller = {
  runId: string;
  conversationId: string;
  toolCallId: string;
  notify: 'wait' | 'message';
  /** The calling run holds a scheduler slot (a team job's run, a delegated child): it lends it while it waits (./lend.ts). */
  holdsSlot?: boolean;
};

export type CreateOptions = { origin: BatchOrigin; caller?: BatchCaller; trusted?: boolean };

type Target = { kind: 'agent' | 'member'; agentId: string; teamId: string | null; memberId: string | null; name: string };

/** The owner's agent or team member the items run as; another owner's ids answer 404 like missing ones. */
async function resolveTarget(ownerId: string, target: BatchCreateInput['target']): Promise<Target> {
  const db = getDb();
  if ('agentId' in target) {
    const [agent] = await db
      .select({ id: schema.agents.id, name: schema.agents.name })
      .from(schema.agents)
      .where(and(eq(schema.agents.id, target.agentId), eq(schema.agents.ownerId, ownerId)));
    if (!agent) throw notFound('Agent');
    return { kind: 'agent', agentId: agent.id, teamId: null, memberId: null, name: agent.name };
  }
  const [member] = await db
    .select({ id: schema.teamMembers.id, agentId: schema.teamMembers.agentId, name: schema.teamMembers.name })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
    .where(and(eq(schema.teamMembers.id, target.memberId), eq(schema.teams.id, target.teamId), eq(schema.teams.ownerId, ownerId)));
  if (!member) throw notFound('Team member');
  if (!member.agentId) throw conflict('agent_deleted', "This member's agent was deleted; a batch needs an agent to run as");
  return { kind: 'member', agentId: member.agentId, teamId: target.teamId, memberId: member.id, name: member.name };
}

/** One more batch running for the owner, created or re-run, fits under LIMITS.batch.livePerOwner; else 429. */
export async function assertRoomForLiveBatch(tx: Db, ownerId: string): Promise<void> {
  const [live] = await tx
    .select({ n: sql<number>`count(*)` })
    .from(schema.batches)
    .where(and(eq(schema.batches.ownerId, ownerId), inArray(schema.batches.status, ['running', 'cancelling'])));
  if (Number(live?.n ?? 0) >= LIMITS.batch.livePerOwner) {
    throw new AppError(429, 'batch_limit', `You already have ${LIMITS.batch.livePerOwner} batches running; wait for one to end or cancel one`, undefined, {
      'Retry-After': '30',
    });
  }
}

/**
 * Create a batch and its items in one transaction. A repeated idempotency key (or the same `batch_task` call) finds the
 * batch it created. Refused: LIMITS.batch.livePerOwner unfinished batches (429), or more conversations than the
 * account's quota leaves (each item runs on a hidden conversation of its own, counted like a delegated child's).
 */
export async function createBatch(ownerId: string, input: BatchCreateInput, options: CreateOptions): Promise<{ batch: Batch; created: boolean }> {
  const target = await resolveTarget(ownerId, input.target);
  const found = await existing(ownerId, input.idempotencyKey, options.caller);
  if (found) return { batch: found, created: false };
  const id = crypto.randomUUID();
  const result = await writeTx(async (tx) => {
    const again = await existing(ownerId, input.idempotencyKey, options.caller);
    if (again) return { batch: again, created: false };
    await assertRoomForLiveBatch(tx, ownerId);
    const limit = quotas().conversationsPerAccount;
    const held = await conversationsHeld(ownerId);
    if (held + input.items.length > limit) {
      throw conflict('conversation_limit', `Conversation limit reached (${limit}): each of the ${input.items.length} items needs a conversation and ${held} are taken`);
    }
    const now = new Date();
    const [batch] = await tx
      .insert(schema.batches)
      .values({
        id,
        ownerId,
        status: 'running',
        targetKind: target.kind,
        agentId: target.agentId,
        teamId: target.teamId,
        memberId: target.memberId,
        targetName: target.name,
        template: input.template,
        columns: input.columns,
        total: input.items.length,
        concurrency: input.concurrency,
        maxAttempts: input.maxAttempts ?? LIMITS.batch.attempts.default,
        origin: options.origin,
        parentRunId: options.caller?.runId ?? null,
        parentConversationId: options.caller?.conversationId ?? null,
        parentToolCallId: options.caller?.toolCallId ?? null,
        notify: options.caller?.notify ?? 'none',
        idempotencyKey: input.idempotencyKey ?? null,
        createdAt: now,
      })
      .returning();
    // In chunks: a statement's bound parameters are limited (SQLite 32,766).
    const rows = input.items.map((item, idx) => ({ id: crypto.randomUUID(), batchId: id, ownerId, idx, input: item }));
    for (let i = 0; i < rows.length; i += 200) await tx.insert(schema.batchItems).values(rows.slice(i, i + 200));
    if (options.caller?.notify === 'wait' && options.caller.holdsSlot) await lendCallerSlot(options.caller.runId);
    return { batch: batch!, created: true };
  });
  if (result.created) batchChanged(ownerId, id);
  return result;
}

async function existing(ownerId: string, key: string | undefined, caller: BatchCaller | undefined): Promise<Batch | undefined> {
  const db = getDb();
  if (caller) {
    const [row] = await db
      .select()
      .from(schema.batches)
      .where(and(eq(schema.batches.parentRunId, caller.runId), eq(schema.batches.parentToolCallId, caller.toolCallId)));
    if (row) return row;
  }
  if (!key) return undefined;
  const [row] = await db
    .select()
    .from(schema.batches)
    .where(and(eq(schema.batches.ownerId, ownerId), eq(schema.batches.idempotencyKey, key)));
  return row;
}

/** The owner's batch, or a 404 exactly like a missing id. */
export async function getBatch(ownerId: string, id: string): Promise<Batch> {
  const [row] = await getDb()
    .select()
    .from(schema.batches)
    .where(and(eq(schema.batches.id, id), eq(schema.batches.ownerId, ownerId)));
  if (!row) throw notFound('Batch');
  return row;
}

export async function findBatch(id: string): Promise<Batch | undefined> {
  const [row] = await getDb().select().from(schema.batches).where(eq(schema.batches.id, id));
  return row;
}

export type Counts = Record<BatchItemStatus, number>;

/** Items per status, through (batch_id, status, idx): one small group-by per batch. */
export async function countsOf(batchIds: readonly string[]): Promise<Map<string, Counts>> {
  const result = new Map<string, Counts>();
  for (const id of batchIds) result.set(id, { queued: 0, running: 0, waiting: 0, done: 0, failed: 0, cancelled: 0 });
  if (!batchIds.length) return result;
  const rows = await getDb()
    .select({ batchId: schema.batchItems.batchId, status: schema.batchItems.status, n: sql<number>`count(*)` })
    .from(schema.batchItems)
    .where(inArray(schema.batchItems.batchId, [...batchIds]))
    .groupBy(schema.batchItems.batchId, schema.batchItems.status);
  for (const row of rows) result.get(row.batchId)![row.status] = Number(row.n);
  return result;
}

/** Cursors are the row's seq (batches) or index (items) as text: opaque to clients, checked as whole numbers. */
export function parseCursor(cursor: string | null | undefined): number | null {
  if (cursor == null || cursor === '') return null;
  if (!/^\d{1,15}$/.test(cursor)) throw validationError({ cursor: 'Not a cursor this API gave' });
  return Number(cursor);
}

/** The owner's batches, newest first, a keyset page by seq. */
export async function listBatches(ownerId: string, cursor: number | null, limit: number): Promise<{ batches: Batch[]; nextCursor: string | null }> {
  const rows = await getDb()
    .select()
    .from(schema.batches)
    .where(and(eq(schema.batches.ownerId, ownerId), cursor === null ? undefined : lt(schema.batches.seq, cursor)))
    .orderBy(desc(schema.batches.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { batches: page, nextCursor: rows.length > limit ? String(page.at(-1)!.seq) : null };
}

/** One batch's items in index order, from `cursor` (the last index seen), optionally of one status. */
export async function listItems(
  ownerId: string,
  batchId: string,
  { status, cursor, limit }: { status?: BatchItemStatus; cursor: number | null; limit: number },
): Promise<{ items: BatchItem[]; nextCursor: string | null }> {
  await getBatch(ownerId, batchId);
  const rows = await itemsAfter(batchId, cursor ?? -1, limit + 1, status);
  const page = rows.slice(0, limit);
  return { items: page, nextCursor: rows.length > limit ? String(page.at(-1)!.idx) : null };
}

/** Items of a batch after index `after`, in index order (export pages through them with this). */
export async function itemsAfter(batchId: string, after: number, limit: number, status?: BatchItemStatus): Promise<BatchItem[]> {
  return getDb()
    .select()
    .from(schema.batchItems)
    .where(and(eq(schema.batchItems.batchId, batchId), gt(schema.batchItems.idx, after), status ? eq(schema.batchItems.status, status) : undefined))
    .orderBy(asc(schema.batchItems.idx))
    .limit(limit);
}

/** The running items of a batch with the run each one has, for stopping them. */
export async function runningItems(batchId: string): Promise<Pick<BatchItem, 'id' | 'runId'>[]> {
  return readTx(async () =>
    getDb()
      .select({ id: schema.batchItems.id, runId: schema.batchItems.runId })
      .from(schema.batchItems)
      .where(and(eq(schema.batchItems.batchId, batchId), eq(schema.batchItems.status, 'running'))),
  );
}
