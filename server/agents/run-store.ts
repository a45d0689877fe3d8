import 'server-only';
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db';
import { tieBreak } from '@/server/db/dialect';
import { encodedPlaceholder, preparedPerConnection } from '@/server/db/prepared';
import type { Run } from '@/server/db/schema';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '@/lib/types/conversation';
import type { Outcome } from './run-types';
import { recordRunEnd } from './observe/run-lifecycle';
import { usageChanged } from '@/server/budgets/usage-cache';
import { priceOf, runCostNanos } from '@/server/providers/prices';
import { currentCluster } from '@/server/cluster/cluster';
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

const ACTIVE = [...ACTIVE_RUN_STATUSES];


/** The hot statements of a run's life (docs/performance.md, Scheduler): built once per connection. */
const statements = preparedPerConnection((db) => ({
  byId: db.select().from(schema.runs).where(eq(schema.runs.id, sql.placeholder('id'))).prepare(),
  markRunning: db
    .update(schema.runs)
    .set({ status: 'running', startedAt: sql`coalesce(${schema.runs.startedAt}, ${encodedPlaceholder('now', schema.runs.startedAt)})` })
    .where(and(eq(schema.runs.id, sql.placeholder('id')), inArray(schema.runs.status, ACTIVE)))
    .returning()
    .prepare(),
  // Several processes: only the run's executor (runs.process_id) starts it (ADR 044 §7).
  markRunningOwned: db
    .update(schema.runs)
    .set({ status: 'running', startedAt: sql`coalesce(${schema.runs.startedAt}, ${encodedPlaceholder('now', schema.runs.startedAt)})` })
    .where(and(eq(schema.runs.id, sql.placeholder('id')), inArray(schema.runs.status, ACTIVE), eq(schema.runs.processId, sql.placeholder('me'))))
    .returning()
    .prepare(),
  finish: db
    .update(schema.runs)
    .set({
      status: sql`${sql.placeholder('status')}`,
      error: sql`${sql.placeholder('error')}`,
      stopReason: sql`${sql.placeholder('stopReason')}`,
      // Placeholders in set() are bound as they are given (JSON text or null), or encoded by their column (Dates).
      interrupt: sql`${sql.placeholder('interrupt')}`,
      // A run whose totals could not be read keeps the ones it has.
      inputTokens: sql`coalesce(${sql.placeholder('inputTokens')}, ${schema.runs.inputTokens})`,
      outputTokens: sql`coalesce(${sql.placeholder('outputTokens')}, ${schema.runs.outputTokens})`,
      modelCalls: sql`coalesce(${sql.placeholder('modelCalls')}, ${schema.runs.modelCalls})`,
      unreportedCalls: sql`coalesce(${sql.placeholder('unreportedCalls')}, ${schema.runs.unreportedCalls})`,
      // Priced once, now (ADR 048): null when unknown, including when the totals could not be read.
      costNanos: sql`${sql.placeholder('costNanos')}`,
      finishedAt: encodedPlaceholder('finishedAt', schema.runs.finishedAt),
    })
    .where(and(eq(schema.runs.id, sql.placeholder('id')), inArray(schema.runs.status, ACTIVE)))
    .returning()
    .prepare(),
  touchConversation: db
    .update(schema.conversations)
    .set({ updatedAt: encodedPlaceholder('updatedAt', schema.conversations.updatedAt) })
    .where(eq(schema.conversations.id, sql.placeholder('id')))
    .prepare(),
}));

export async function findRun(runId: string): Promise<Run | undefined> {
  return (await statements().byId.execute({ id: runId }))[0];
}

/** The conversation's newest run of its agent (framework notes, kind 'note', are not runs a person acts on). */
export async function latestRun(conversationId: string): Promise<Run | undefined> {
  const [run] = await getDb()
    .select()
    .from(schema.runs)
    .where(and(eq(schema.runs.conversationId, conversationId), ne(schema.runs.kind, 'note')))
    .orderBy(desc(schema.runs.createdAt), desc(tieBreak(schema.runs.id)))
    .limit(1);
  return run;
}

export async function unfinishedRuns(): Promise<Run[]> {
  return getDb()
    .select()
    .from(schema.runs)
    .where(inArray(schema.runs.status, [...ACTIVE_RUN_STATUSES]))
    .orderBy(schema.runs.createdAt);
}

/**
 * pending → running (also when a recovered run was already 'running'); undefined when it already finished, or — with
 * several processes — when another process executes it: a run written under an identity this process gave up (a
 * late beat's rejoin, ADR 044 §7) belongs to whoever takes it over, never to a launch queued here before. `andThen`
 * runs in the same transaction (the executor records the run's assembly there: one commit instead of two, and each
 * commit waits for the disk); 'run:started' is emitted once that transaction has committed.
 */
export async function markRunning<T = undefined>(
  runId: string,
  andThen?: (run: Run) => T | Promise<T>,
): Promise<{ run: Run; then: T } | undefined> {
  const started = await writeTx(async (tx) => {
    const cluster = currentCluster();
    const [run] = cluster.shared
      ? await statements(tx).markRunningOwned.execute({ id: runId, now: new Date(), me: cluster.processId })
      : await statements(tx).markRunning.execute({ id: runId, now: new Date() });
    return run ? { run, then: andThen ? await andThen(run) : (undefined as T) } : undefined;
  });
  if (started) {
    const { run } = started;
    runEvents().emit('run:started', { runId, conversationId: run.conversationId, ownerId: run.ownerId, status: run.status });
  }
  return started;
}

// A run's final status lives in run-types.ts, so observe/run-lifecycle.ts (which this module calls) needn't import this one.
export type { Outcome };

/** The model's price when the run ends; a failed read leaves the cost unknown rather than the run unfinished. */
async function runPrice(model: string) {
  try {
    return await priceOf(model);
  } catch (err) {
    console.error(`[runs] could not read the price of ${model}; the run's cost stays unknown`, err);
    return null;
  }
}

/**
 * Record a run's final status once: only a pending/running row changes, so a late outcome never overwrites
 * 'cancelled'. Its end events are written first (observe/run-lifecycle.ts: once per run, so a row finished in the
 * same way again after a crash adds none) and its token totals are read from its recorded model calls, so a run
 * recovered after a crash counts the calls made before it too (observe/run-lifecycle.ts recordRunEnd, which never
 * throws: a run always gets its outcome). Touches the conversation and emits 'run:finished'.
 */
export async function finishRun(runId: string, outcome: Outcome): Promise<Run | undefined> {
  const current = await findRun(runId);
  if (!current || isFinished(current.status)) return undefined;
  const totals = await recordRunEnd(current, outcome);
  const cost = totals ? runCostNanos(totals, await runPrice(current.model)) : null;
  const now = new Date();
  const interrupt = outcome.status === 'interrupted' ? (outcome.interrupt ?? null) : null;
  const row = await writeTx(async (tx) => {
    const sql = statements(tx);
    const [updated] = await sql.finish.execute({
      id: runId,
      status: outcome.status,
      error: outcome.status === 'error' ? outcome.error : null,
      stopReason: outcome.status === 'error' || outcome.status === 'success' ? (outcome.stopReason ?? null) : null,
      interrupt: interrupt === null ? null : JSON.stringify(interrupt),
      inputTokens: totals?.inputTokens ?? null,
      outputTokens: totals?.outputTokens ?? null,
      modelCalls: totals?.modelCalls ?? null,
      unreportedCalls: totals?.unreportedCalls ?? null,
      costNanos: cost,
      finishedAt: now,
    });
    if (updated) await sql.touchConversation.execute({ id: updated.conversationId, updatedAt: now });
    return updated;
  });
  // Its totals now count toward its team's budget and its account's day: the memoized sums are read afresh.
  if (row) usageChanged(row);
  if (row) runEvents().emit('run:finished', { runId, conversationId: row.conversationId, ownerId: row.ownerId, status: row.status, teamId: row.teamId });
  return row;
}
