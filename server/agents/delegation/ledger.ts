import 'server-only';
import crypto from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { DelegationResult, DelegationStatus } from '@/lib/types/delegation';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import type { Delegation } from '@/server/db/schema';
import type { DelegationSpec, TaskRefusal } from './spec';
import { noteConversationChange } from '@/server/push/conversation-changes';
import { delegationEvents } from './events';

/**
 * The durable delegation ledger (`delegations`): one row per `task` call, unique by (parent run, tool call), so a
 * tools step redone after a crash finds the child it already asked for. A refused call is kept too (status 'failed',
 * never admitted), but only accepted children count against the parent's total.
 */

export const UNFINISHED: DelegationStatus[] = ['queued', 'running'];
export const isUnfinished = (status: DelegationStatus) => UNFINISHED.includes(status);

export function findDelegation(id: string): Delegation | undefined {
  return getDb().select().from(schema.delegations).where(eq(schema.delegations.id, id)).get();
}

export function findByCall(parentRunId: string, toolCallId: string, db: Db = getDb()): Delegation | undefined {
  return db
    .select()
    .from(schema.delegations)
    .where(and(eq(schema.delegations.parentRunId, parentRunId), eq(schema.delegations.parentToolCallId, toolCallId)))
    .get();
}

export function childrenOf(parentRunId: string): Delegation[] {
  return getDb().select().from(schema.delegations).where(eq(schema.delegations.parentRunId, parentRunId)).orderBy(asc(schema.delegations.seq)).all();
}

/** Children a run has started in all (a refused call is never admitted and does not count). */
function acceptedCount(db: Db, parentRunId: string): number {
  const row = db.$client
    .prepare(`select count(*) as n from delegations where parent_run_id = ? and not (status = 'failed' and admitted_at is null)`)
    .get(parentRunId) as { n: number };
  return row.n;
}

/** Children the run may still start (its settings' total minus those it started). */
export function remainingChildren(parentRunId: string, maxChildren: number): number {
  return Math.max(0, maxChildren - acceptedCount(getDb(), parentRunId));
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
 * Accept a child: the total is checked in the inserting transaction (BEGIN IMMEDIATE), so parallel `task` calls of
 * one turn can't pass the cap together. A parent that holds a slot lends it from now on ('waiting'). The same call
 * again returns its existing row. Returns null when the run has no children left.
 */
export function acceptChild(parent: ParentRef, child: NewChild, maxChildren: number): Delegation | null {
  return writeTx((tx) => {
    const existing = findByCall(parent.runId, parent.toolCallId, tx);
    if (existing) return existing;
    if (acceptedCount(tx, parent.runId) >= maxChildren) return null;
    const row = tx
      .insert(schema.delegations)
      .values({ ...rowOfCall(parent), agentId: child.agentId, provider: child.provider, spec: child.spec, status: 'queued' })
      .returning()
      .get();
    if (parent.holdsSlot) tx.update(schema.runs).set({ delegationWait: 'waiting' }).where(eq(schema.runs.id, parent.runId)).run();
    // The parent's open Steps panels show the queued child (announced after this transaction, announce-children.ts).
    noteConversationChange(parent.conversationId, parent.runId);
    return row;
  });
}

/** Record a refused call (never run), so a redone step gives the same answer. */
export function recordRefusal(parent: ParentRef, refusal: TaskRefusal, provider: string, agentId: string | null, request: unknown): Delegation {
  return writeTx((tx) => {
    const existing = findByCall(parent.runId, parent.toolCallId, tx);
    if (existing) return existing;
    noteConversationChange(parent.conversationId, parent.runId);
    return tx
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
      .returning()
      .get();
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
export function finishChild(id: string, status: Extract<DelegationStatus, 'completed' | 'failed' | 'cancelled'>, result: DelegationResult | null, error: string | null): Delegation | undefined {
  const row = writeTx((tx) => {
    const updated = tx
      .update(schema.delegations)
      .set({ status, result, error, finishedAt: new Date() })
      .where(and(eq(schema.delegations.id, id), inArray(schema.delegations.status, UNFINISHED)))
      .returning()
      .get();
    if (!updated) return undefined;
    const open = tx.$client
      .prepare(`select count(*) as n from delegations where parent_run_id = ? and status in ('queued','running')`)
      .get(updated.parentRunId) as { n: number };
    if (open.n === 0) {
      tx.update(schema.runs)
        .set({ delegationWait: 'ready' })
        .where(and(eq(schema.runs.id, updated.parentRunId), eq(schema.runs.delegationWait, 'waiting')))
        .run();
    }
    return updated;
  });
  if (row) delegationEvents().emit('finished', { delegationId: row.id, parentRunId: row.parentRunId });
  return row;
}

/** queued → running (the scheduler admitted it) while its parent is still active. */
export function admitChildRow(id: string): boolean {
  const changed = getDb().$client
    .prepare(
      `update delegations set status = 'running', admitted_at = ?
        where id = ? and status = 'queued'
          and exists (select 1 from runs p where p.id = delegations.parent_run_id and p.status in ('pending','running'))`,
    )
    .run(Date.now(), id);
  return changed.changes === 1;
}

/** 'ready' → null: the parent took its slot back; its waiting `task` calls may return. */
export function readmitParentRun(runId: string): boolean {
  const changed = getDb().update(schema.runs).set({ delegationWait: null }).where(and(eq(schema.runs.id, runId), eq(schema.runs.delegationWait, 'ready'))).run();
  if (changed.changes !== 1) return false;
  delegationEvents().emit('resumed', { runId });
  return true;
}

export function setChildRun(id: string, fields: { childConversationId?: string; childRunId?: string }): void {
  getDb().update(schema.delegations).set(fields).where(eq(schema.delegations.id, id)).run();
}

/** The parent's lending state now (null: it holds its slot, or never lent one). */
export function parentWait(runId: string): 'waiting' | 'ready' | null {
  const row = getDb().select({ wait: schema.runs.delegationWait }).from(schema.runs).where(eq(schema.runs.id, runId)).get();
  return row?.wait ?? null;
}
