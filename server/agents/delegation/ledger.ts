import 'server-only';
import crypto from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { DelegationResult, DelegationStatus } from '@/lib/types/delegation';
import { afterCommit, getDb, schema, writeTx } from '@/server/db';
import type { Delegation } from '@/server/db/schema';
import { statement } from '@/server/db/statement';
import type { DelegationSpec, TaskRefusal } from './spec';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { delegationEvents } from './events';
import { unpinProvider } from './provider-pins';

/**
 * The durable delegation ledger (`delegations`): one row per `task` call, unique by (parent run, tool call), so a
 * tools step redone after a crash finds the child it already asked for. A refused call is kept too (status 'failed',
 * never admitted), but only accepted children count against the parent's total.
 */

export const UNFINISHED: DelegationStatus[] = ['queued', 'running'];
export const isUnfinished = (status: DelegationStatus) => UNFINISHED.includes(status);

export async function findDelegation(id: string): Promise<Delegation | undefined> {
  return (await getDb().select().from(schema.delegations).where(eq(schema.delegations.id, id)))[0];
}

/** The row of one `task` call (inside a transaction, as that transaction sees it). */
export async function findByCall(parentRunId: string, toolCallId: string): Promise<Delegation | undefined> {
  const rows = await getDb()
    .select()
    .from(schema.delegations)
    .where(and(eq(schema.delegations.parentRunId, parentRunId), eq(schema.delegations.parentToolCallId, toolCallId)))
    .limit(1);
  return rows[0];
}

export async function childrenOf(parentRunId: string): Promise<Delegation[]> {
  return getDb().select().from(schema.delegations).where(eq(schema.delegations.parentRunId, parentRunId)).orderBy(asc(schema.delegations.seq));
}

const acceptedChildren = statement(`select count(*) as n from delegations where parent_run_id = ? and not (status = 'failed' and admitted_at is null)`);
const openChildren = statement(`select count(*) as n from delegations where parent_run_id = ? and status in ('queued','running')`);
const admitChild = statement(
  `update delegations set status = 'running', admitted_at = ?
    where id = ? and status = 'queued'
      and exists (select 1 from runs p where p.id = delegations.parent_run_id and p.status in ('pending','running'))`,
);

/** Children a run has started in all (a refused call is never admitted and does not count). */
async function acceptedCount(parentRunId: string): Promise<number> {
  const row = await acceptedChildren.get<{ n: number }>(parentRunId);
  return row?.n ?? 0;
}

/** Children the run may still start (its settings' total minus those it started). */
export async function remainingChildren(parentRunId: string, maxChildren: number): Promise<number> {
  return Math.max(0, maxChildren - (await acceptedCount(parentRunId)));
}

export type ParentRef = {
  ownerId: string;
  runId: string;
  conversationId: string;
  toolCallId: string;
  teamId: string | null;
  depth: number;
  /** Whether the parent holds a scheduler slot (a team job's run or a delegated child): then it lends it while waiting. */
  holdsSlot: boolean;
};

export type NewChild = { agentId: string; provider: string; spec: DelegationSpec };

/**
 * Accept a child: the total is checked in the inserting transaction (a write transaction: no other writer runs in
 * between), so parallel `task` calls of one turn can't pass the cap together. A parent that holds a slot lends it
 * from now on ('waiting'). The same call again returns its existing row. Returns null when the run has no children
 * left.
 */
export async function acceptChild(parent: ParentRef, child: NewChild, maxChildren: number): Promise<Delegation | null> {
  return writeTx(async (tx) => {
    const existing = await findByCall(parent.runId, parent.toolCallId);
    if (existing) return existing;
    if ((await acceptedCount(parent.runId)) >= maxChildren) return null;
    const [row] = await tx
      .insert(schema.delegations)
      .values({ ...rowOfCall(parent), agentId: child.agentId, provider: child.provider, spec: child.spec, status: 'queued' })
      .returning();
    if (parent.holdsSlot) await tx.update(schema.runs).set({ delegationWait: 'waiting' }).where(eq(schema.runs.id, parent.runId));
    // The parent's open Steps panels show the queued child (announced after this transaction commits).
    noteConversationChange(parent.conversationId, parent.runId);
    return row!;
  });
}

/** Record a refused call (never run), so a redone step gives the same answer. */
export async function recordRefusal(parent: ParentRef, refusal: TaskRefusal, provider: string, agentId: string | null, request: unknown): Promise<Delegation> {
  return writeTx(async (tx) => {
    const existing = await findByCall(parent.runId, parent.toolCallId);
    if (existing) return existing;
    noteConversationChange(parent.conversationId, parent.runId);
    const [row] = await tx
      .insert(schema.delegations)
      .values({
        ...rowOfCall(parent),
        agentId,
        provider,
        spec: { refused: refusal.toJSON(), request: boundedRequest(request) },
        status: 'failed',
        error: refusal.message,
        finishedAt: new Date(),
      })
      .returning();
    return row!;
  });
}

/** The columns every ledger row takes from the `task` call that asked for it. */
function rowOfCall(parent: ParentRef) {
  return {
    id: crypto.randomUUID(),
    ownerId: parent.ownerId,
    parentRunId: parent.runId,
    parentConversationId: parent.conversationId,
    parentToolCallId: parent.toolCallId,
    teamId: parent.teamId,
    depth: parent.depth + 1,
  };
}

/** What is kept of arguments that failed validation: their JSON, cut to a bound (they may be huge). */
function boundedRequest(request: unknown): string {
  const text = JSON.stringify(request ?? null) ?? 'null';
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

/**
 * Finish a child once (only an unfinished row changes) and store what its parent receives. When it was the parent's
 * last unfinished child and the parent lent its slot, the parent becomes 'ready' (a scheduler candidate again).
 */
export async function finishChild(
  id: string,
  status: Extract<DelegationStatus, 'completed' | 'failed' | 'cancelled'>,
  result: DelegationResult | null,
  error: string | null,
): Promise<Delegation | undefined> {
  const row = await writeTx(async (tx) => {
    const [updated] = await tx
      .update(schema.delegations)
      .set({ status, result, error, finishedAt: new Date() })
      .where(and(eq(schema.delegations.id, id), inArray(schema.delegations.status, UNFINISHED)))
      .returning();
    if (!updated) return undefined;
    const open = await openChildren.get<{ n: number }>(updated.parentRunId);
    if (!open?.n) {
      await tx
        .update(schema.runs)
        .set({ delegationWait: 'ready' })
        .where(and(eq(schema.runs.id, updated.parentRunId), eq(schema.runs.delegationWait, 'waiting')));
    }
    return updated;
  });
  if (row) {
    unpinProvider(row.id);
    delegationEvents().emit('finished', { delegationId: row.id, parentRunId: row.parentRunId });
  }
  return row;
}

/** queued → running (the scheduler admitted it) while its parent is still active. */
export async function admitChildRow(id: string): Promise<boolean> {
  const changed = await writeTx(async () => admitChild.run(new Date(), id));
  return changed === 1;
}

/** 'ready' → null: the parent took its slot back; its waiting `task` calls may return. */
export async function readmitParentRun(runId: string): Promise<boolean> {
  return writeTx(async (tx) => {
    const changed = await tx
      .update(schema.runs)
      .set({ delegationWait: null })
      .where(and(eq(schema.runs.id, runId), eq(schema.runs.delegationWait, 'ready')))
      .returning({ id: schema.runs.id });
    if (changed.length !== 1) return false;
    // Once committed (the planning pass admits in one transaction): the waiters then read the parent as admitted.
    afterCommit(() => delegationEvents().emit('resumed', { runId }));
    return true;
  });
}

export async function setChildRun(id: string, fields: { childConversationId?: string; childRunId?: string }): Promise<void> {
  await writeTx(async (tx) => {
    await tx.update(schema.delegations).set(fields).where(eq(schema.delegations.id, id));
  });
}

/** The parent's lending state now (null: it holds its slot, or never lent one). */
export async function parentWait(runId: string): Promise<'waiting' | 'ready' | null> {
  const [row] = await getDb().select({ wait: schema.runs.delegationWait }).from(schema.runs).where(eq(schema.runs.id, runId));
  return row?.wait ?? null;
}
