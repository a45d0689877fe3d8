/**
 * Token totals per team job: a job answered after a clarification or an approval ran more than once (one run per
 * attempt, server/teams/runs-timeline.ts), so its cost is the sum of its runs. Pure; over the runs the page holds.
 */
import type { TokenTotals } from '@/lib/types/run-events';
import type { ApiTeamRun, ApiTeamRuns } from '@/lib/types/team-runs';
import { runStart } from './layout';

export type JobTotals = { jobId: string; memberId: string; jobKind: NonNullable<ApiTeamRun['jobKind']>; runs: number; start: number; tokens: TokenTotals };

/** One row per job with a run in the data, by its first run's start; runs that were no job (direct chats) are left out. */
export function jobTotals(data: Pick<ApiTeamRuns, 'runs'>): JobTotals[] {
  const byJob = new Map<string, JobTotals>();
  for (const run of data.runs) {
    if (!run.jobId || !run.jobKind) continue;
    const start = runStart(run);
    const row = byJob.get(run.jobId);
    if (!row) {
      byJob.set(run.jobId, { jobId: run.jobId, memberId: run.memberId, jobKind: run.jobKind, runs: 1, start, tokens: { ...run.tokens } });
      continue;
    }
    row.runs += 1;
    row.start = Math.min(row.start, start);
    row.tokens.inputTokens += run.tokens.inputTokens;
    row.tokens.outputTokens += run.tokens.outputTokens;
    row.tokens.modelCalls += run.tokens.modelCalls;
    row.tokens.unreportedCalls += run.tokens.unreportedCalls;
  }
  return [...byJob.values()].sort((a, b) => a.start - b.start || a.jobId.localeCompare(b.jobId));
}
