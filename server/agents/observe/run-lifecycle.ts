import 'server-only';
import { runOutcome } from '@/lib/run-outcome';
import type { RunEventData, TokenTotals } from '@/lib/types/run-events';
import type { Run } from '@/server/db/schema';
import { flushStepJournal, readCheckpointStore } from '../checkpointer';
import type { EventRow } from '../checkpoint/journal-write';
import { prepared } from '../checkpoint/sqlite-statements';
import { journal } from '../checkpoint/step-journal';
import type { Outcome } from '../run-types';
import { runEventCaptureEnabled } from './capture-switch';
import { capJson, capText } from './caps';
import { eventRow, journalRunEvent } from './record';

/**
 * The events written outside graph steps, at a run's edges: `run.started` (and `resume` with the answer a resume
 * run carries) when an execution begins, `interrupt` and `run.finished` when the run is recorded finished.
 */
export function recordRunStarted(
  run: Run,
  kind: 'start' | 'resume' | 'continue',
  start: { model: string; fingerprint: string | null; missingMcpServers?: readonly string[] },
): void {
  // Queued, not written: the graph saves its first step (the input checkpoint) at once, and these ride in that
  // transaction instead of paying a commit of their own. A crash before it loses them with the step, and the
  // recovered execution records its own start; a run that ends before any step flushes them with run.finished.
  journalRunEvent(run.id, run.conversationId, { type: 'run.started', kind, model: start.model, fingerprint: start.fingerprint });
  if (kind === 'resume') journalRunEvent(run.id, run.conversationId, { type: 'resume', ...cappedValue('value', (run.input as { value?: unknown }).value) });
  // Servers the setup names that the run can't use: the person sees in Steps why their tools are missing (ADR 055).
  if (start.missingMcpServers?.length) journalRunEvent(run.id, run.conversationId, { type: 'tools.unavailable', mcpServers: [...start.missingMcpServers] });
}

/**
 * Write the end of a run: what it waits for (`interrupt`) and `run.finished`, once per run (a run finished again
 * after a crash between this and its row update writes nothing more). Anything the thread's step journal still
 * holds is saved first: the events of a step that was cancelled or failed (its model call did happen; the run is
 * not redone, so they are the record of it) keep their place before the end.
 */
export async function recordRunFinished(runId: string, threadId: string, outcome: Outcome): Promise<void> {
  if (!runEventCaptureEnabled()) return;
  const at = Date.now();
  const events: EventRow[] = [];
  if (outcome.status === 'interrupted') events.push(eventRow(runId, threadId, { type: 'interrupt', ...cappedValue('interrupt', outcome.interrupt) }, at));
  const finished: RunEventData = { type: 'run.finished', outcome: runOutcome(outcome.status) };
  if (outcome.status === 'error') Object.assign(finished, { error: capText(outcome.error).text, stopReason: outcome.stopReason ?? null });
  // A completed run the guards capped says so too (a run that ran its course has no stopReason field).
  if (outcome.status === 'success' && outcome.stopReason) Object.assign(finished, { stopReason: outcome.stopReason });
  events.push(eventRow(runId, threadId, finished, at));
  journal(threadId, { kind: 'events', runId, threadId, events, unlessRecorded: 'run.finished' });
  await flushStepJournal(threadId);
}

/**
 * The end of a run for finishRun: its end events (not for framework notes, which run no agent), then its token
 * totals. Never throws: when the checkpoint store refuses (logged), the outcome is still recorded, the totals left
 * as they are (null).
 */
export async function recordRunEnd(run: Pick<Run, 'id' | 'conversationId' | 'kind'>, outcome: Outcome): Promise<TokenTotals | null> {
  try {
    if (run.kind !== 'note') await recordRunFinished(run.id, run.conversationId, outcome);
    return await runTokenTotals(run.id);
  } catch (err) {
    console.error(`[run-events] could not record the end of run ${run.id}`, err);
    return null;
  }
}

type TotalsRow = { calls: number; input: number; output: number; unreported: number };

/**
 * A run's token totals from its recorded model calls (system calls such as summaries included): tokens as the
 * provider reported them, and how many calls reported none (a failed call among them).
 */
export async function runTokenTotals(runId: string): Promise<TokenTotals> {
  // Nothing is recorded with capture off (the benchmark's baseline): no calls to sum.
  if (!runEventCaptureEnabled()) return { inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 };
  const row = await readCheckpointStore(
    (db) =>
      prepared(
        db,
        `SELECT count(*) AS calls,
                coalesce(sum(json_extract(data, '$.inputTokens')), 0) AS input,
                coalesce(sum(json_extract(data, '$.outputTokens')), 0) AS output,
                count(*) FILTER (WHERE json_extract(data, '$.inputTokens') IS NULL AND json_extract(data, '$.outputTokens') IS NULL) AS unreported
         FROM run_events WHERE run_id = ? AND type = 'model.call'`,
      ).get(runId) as TotalsRow,
    async (saver) =>
      (
        await saver.pool.query<TotalsRow>(
          `SELECT count(*) AS calls,
                  coalesce(sum((data::json ->> 'inputTokens')::numeric), 0) AS input,
                  coalesce(sum((data::json ->> 'outputTokens')::numeric), 0) AS output,
                  count(*) FILTER (WHERE data::json ->> 'inputTokens' IS NULL AND data::json ->> 'outputTokens' IS NULL) AS unreported
           FROM "${saver.schema}".run_events WHERE run_id = $1 AND type = 'model.call'`,
          [runId],
        )
      ).rows[0]!,
  );
  return { inputTokens: row.input, outputTokens: row.output, modelCalls: row.calls, unreportedCalls: row.unreported };
}

/** A free-form value as it is, or its JSON text cut to the cap and flagged when it is longer. */
function cappedValue<K extends 'value' | 'interrupt'>(key: K, value: unknown): Record<K, unknown> & { truncated?: true } {
  const json = capJson(value);
  return (json.truncated ? { [key]: json.text, truncated: true } : { [key]: value ?? null }) as Record<K, unknown> & { truncated?: true };
}
