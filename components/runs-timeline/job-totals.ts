/**
 * Token totals per team job: a job answered after a clarification or an approval ran more than once (one run per
 * attempt, server/teams/runs-timeline.ts), so its cost is the sum of its runs. Pure; over the runs the page holds.
 */
import { NANO, nanosToUsd, parseDecimal } from '@/lib/money';
import type { TokenTotals } from '@/lib/types/run-events';
import type { ApiTeamRun, ApiTeamRuns } from '@/lib/types/team-runs';
import { runStart } from './layout';

export type JobTotals = {
  jobId: string;
  memberId: string;
  jobKind: NonNullable<ApiTeamRun['jobKind']>;
  runs: number;
  start: number;
  tokens: TokenTotals;
  /** Its finished runs' known costs summed (US dollars), and how many finished runs' cost is unknown (never 0). */
  cost: { usd: string; unknownRuns: number };
  /** Runs still going: priced when they finish. */
  unfinished: number;
};

/** One row per job with a run in the data, by its first run's start; runs that were no job (direct chats) are left out. */
export function jobTotals(data: Pick<ApiTeamRuns, 'runs'>): JobTotals[] {
  const byJob = new Map<string, JobTotals & { nanos: number }>();
  for (const run of data.runs) {
    if (!run.jobId || !run.jobKind) continue;
    const start = runStart(run);
    let row = byJob.get(run.jobId);
    if (!row) {
      row = { jobId: run.jobId, memberId: run.memberId, jobKind: run.jobKind, runs: 0, start, tokens: { inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 }, cost: { usd: '0.00', unknownRuns: 0 }, unfinished: 0, nanos: 0 };
      byJob.set(run.jobId, row);
    }
    row.runs += 1;
    row.start = Math.min(row.start, start);
    row.tokens.inputTokens += run.tokens.inputTokens;
    row.tokens.outputTokens += run.tokens.outputTokens;
    row.tokens.modelCalls += run.tokens.modelCalls;
    row.tokens.unreportedCalls += run.tokens.unreportedCalls;
    // Summed in whole nano-dollars (exact), as the server sums a member's and the team's (ADR 048).
    const nanos = run.cost === null ? null : parseDecimal(run.cost, NANO);
    if (run.finishedAt === null) row.unfinished += 1;
    else if (nanos === null) row.cost.unknownRuns += 1;
    else row.nanos += nanos;
  }
  for (const row of byJob.values()) row.cost.usd = nanosToUsd(row.nanos);
  return [...byJob.values()].map(({ nanos: _nanos, ...row }) => row).sort((a, b) => a.start - b.start || a.jobId.localeCompare(b.jobId));
}
