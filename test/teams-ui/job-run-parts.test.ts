import { describe, expect, it } from 'vitest';
import { jobRunParts } from '@/components/teams/job-run-parts';

describe("a job card's Steps", () => {
  it('is one disclosure for a job that ran once', () => {
    expect(jobRunParts({ id: 'r1', setupChanges: null, earlierRunIds: [] })).toEqual([{ runId: 'r1', label: 'Steps', heading: 'Steps of this job' }]);
  });

  it('is one per run, oldest first, for a job that went on after answers: nothing before an answer is out of reach', () => {
    expect(jobRunParts({ id: 'r3', setupChanges: null, earlierRunIds: ['r1', 'r2'] })).toEqual([
      { runId: 'r1', label: 'Steps 1 of 3, before your answer', heading: 'Steps of this job, part 1 of 3' },
      { runId: 'r2', label: 'Steps 2 of 3, after your answer', heading: 'Steps of this job, part 2 of 3' },
      { runId: 'r3', label: 'Steps 3 of 3, after your answer', heading: 'Steps of this job, part 3 of 3' },
    ]);
  });
});
