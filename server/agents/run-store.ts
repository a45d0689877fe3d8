import 'server-only';
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '@/lib/types/conversation';
import type { StopReason } from '@/lib/types/stop-reason';
import { recordRunEnd } from './observe/run-lifecycle';
import { usageChanged } from '@/server/budgets/usage-cache';
import { runEvents } from './run-events';

/** What a run row keeps as `input`: enough to execute the same request again after a crash. */
export type StartInput = {
  text: string;
  meta?: Record<string, unknown>;
  messageContent?: string;
  context?: Record<string, unknown>;
};
export type ResumeInput = {
  value: unknown;
  /** The thread's checkpoint when the resume was accepted: recovery can tell whether it was applied. */
  checkpointId?: string;
  context?: Record<string, unknown>;
};

export const isFinished = (status: RunStatus) => !ACTIVE_RUN_STATUSES.includes(status);

export function findRun(runId: string): Run | undefined {
  return getDb().select().from(schema.runs).where(eq(schema.runs.id, runId)).get();
}

/** The conversation's newest run of its agent (framework notes, kind 'note', are not runs a person acts on). */
export function latestRun(conversationId: string): Run | undefined {
  return getDb()
    .select()
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, conversationId), ne(schema.runs.kind, 'note')))
    .orderBy(desc(schema.runs.createdAt), desc(sql`rowid`))
    .limit(1)
    .get();
}

export function unfinishedRuns(): Run[] {
  return getDb()
    .select()
    .from(schema.runs)
    .where(inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES]))
    .orderBy(schema.runs.createdAt)
    .all();
}

/** pending → running (also when a recovered run was already 'running'). False when it already finished. */
export function markRunning(runId: string): Run | undefined {
  const row = getDb()
    .update(schema.runs)
    .set({ status: 'running', startedAt: sql`coalesce(${schema.runs.startedAt}, ${Date.now()})` })
    .where(and(eq(schema.runs.id, runId), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
    .returning()
    .get();
  if (row) runEvents().emit('run:started', { runId, conversationId: row.conversationId, ownerId: row.ownerId, status: row.status });
  return row;
}

export type Outcome =
  | { status: 'success'; stopReason?: StopReason }
  | { status: 'interrupted'; interrupt: unknown }
  | { status: 'error'; error: string; stopReason?: StopReason }
  | { status: 'cancelled' };

/**
 * Record a run's final status once: only a pending/running row changes, so a late outcome never overwrites
 * 'cancelled'. Its end events are written first (observe/run-lifecycle.ts: once per run, so a row finished in the
 * same way again after a crash adds none) and its token totals are read from its recorded model calls, so a run
 * recovered after a crash counts the calls made before it too (observe/run-lifecycle.ts recordRunEnd, which never
 * throws: a run always gets its outcome). Touches the conversation and emits 'run:finished'.
 */
export function finishRun(runId: string, outcome: Outcome): Run | undefined {
  const current = findRun(runId);
  if (!current || isFinished(current.status)) return undefined;
  const totals = recordRunEnd(current, outcome);
  const now = new Date();
  const row = writeTx((tx) => {
    const updated = tx
      .update(schema.runs)
      .set({
        status: outcome.status,
        error: outcome.status === 'error' ? outcome.error : null,
        stopReason: outcome.status === 'error' || outcome.status === 'success' ? (outcome.stopReason ?? null) : null,
        interrupt: outcome.status === 'interrupted' ? (outcome.interrupt ?? null) : null,
        ...(totals ?? {}),
        finishedAt: now,
      })
      .where(and(eq(schema.runs.id, runId), inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES])))
      .returning()
      .get();
    if (updated) tx.update(schema.conversations).set({ updatedAt: now }).where(eq(schema.conversations.id, updated.conversationId)).run();
    return updated;
  });
  // Its totals now count toward its team's budget and its account's day: the memoized sums are read afresh.
  if (row) usageChanged(row);
  if (row) runEvents().emit('run:finished', { runId, conversationId: row.conversationId, ownerId: row.ownerId, status: row.status });
  return row;
}
