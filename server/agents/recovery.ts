import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { inspectionGraph, launchRun } from './run-executor';
import { activeRuns } from './run-events';
import { finishRun, unfinishedRuns, type ResumeInput } from './run-store';
import { hasRunMessage, outcomeOf, readThread, threadConfig } from './thread';

export type RecoveryAction = 'executed' | 'continued' | 'recorded' | 'failed';
export type RecoveryReport = { runId: string; action: RecoveryAction; status?: string }[];

/**
 * Start-up reconciliation: every run a dead process left pending/running is decided from its thread's
 * checkpoint, never blindly restarted and never given a second row.
 * - its input never reached the thread → execute it now with the stored input;
 * - the graph stopped mid-way → continue from the last checkpoint (null input);
 * - the graph had finished → record success/interrupted from the state.
 */
export async function recoverRuns(): Promise<RecoveryReport> {
  const report: RecoveryReport = [];
  for (const run of await unfinishedRuns()) {
    // Framework notes are appended, never executed: recoverNotes() (thread-notes.ts) finishes them first.
    if (activeRuns().has(run.id) || run.kind === 'note') continue;
    report.push({ runId: run.id, ...(await recoverOrFail(run)) });
  }
  return report;
}

/** Recover one run; one that can't be decided is recorded as failed, saying why, rather than left stuck. */
export async function recoverOrFail(run: Run): Promise<{ action: RecoveryAction; status?: string }> {
  try {
    return await recoverRun(run);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await finishRun(run.id, { status: 'error', error: `Could not recover the run: ${message}` });
    return { action: 'failed' };
  }
}

async function recoverRun(run: Run): Promise<{ action: RecoveryAction; status?: string }> {
  const thread = await readThread(run.conversationId);
  const inputApplied =
    run.kind === 'start'
      ? hasRunMessage(thread.messages, run.id)
      : thread.checkpointId !== ((run.input as ResumeInput).checkpointId ?? null);
  if (!inputApplied) {
    launchRun(run.id, 'input');
    return { action: 'executed' };
  }
  const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, run.conversationId));
  const [agent] = conversation?.agentId ? await getDb().select().from(schema.agents).where(eq(schema.agents.id, conversation.agentId)) : [];
  if (!agent) {
    await finishRun(run.id, { status: 'error', error: 'The agent of this conversation was deleted' });
    return { action: 'recorded', status: 'error' };
  }
  const graph = await inspectionGraph(agent, run);
  const outcome = outcomeOf(await graph.getState(threadConfig(run.conversationId)), run.id);
  if (!outcome.done) {
    launchRun(run.id, 'continue');
    return { action: 'continued' };
  }
  await finishRun(run.id, outcome);
  return { action: 'recorded', status: outcome.status };
}
