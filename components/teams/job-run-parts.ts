import type { ApiJob } from '@/lib/types/team';

export type JobRunPart = { runId: string; label: string; heading: string };

/**
 * The Steps disclosures of a job card: one for a job that ran once; one per run, oldest first, for a job that
 * stopped for the person's answer and went on (each answer starts a new run), so the steps before an answer stay
 * reachable beside those after it.
 */
export function jobRunParts(run: NonNullable<ApiJob['run']>): JobRunPart[] {
  const ids = [...run.earlierRunIds, run.id];
  if (ids.length === 1) return [{ runId: run.id, label: 'Steps', heading: 'Steps of this job' }];
  return ids.map((runId, i) => ({
    runId,
    label: i === 0 ? `Steps 1 of ${ids.length}, before your answer` : `Steps ${i + 1} of ${ids.length}, after your answer`,
    heading: `Steps of this job, part ${i + 1} of ${ids.length}`,
  }));
}
