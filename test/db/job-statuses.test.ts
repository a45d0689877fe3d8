import { describe, expect, it } from 'vitest';
import { FINISHED_JOB_STATUSES, JOB_STATUSES, UNFINISHED_JOB_PREDICATE, UNFINISHED_JOB_STATUSES } from '@/server/db/schema';

// The job status lists are spelled once (server/db/sqlite-schema.ts) and read by the partial indexes, the planning
// pass, history, cancel-all and the revision bump. What must not happen: a new status that is in neither list (a job
// that never counts as pending nor as finished), or one in both.
describe('job statuses', () => {
  it('unfinished and finished split every status between them, with none in both', () => {
    expect([...UNFINISHED_JOB_STATUSES, ...FINISHED_JOB_STATUSES].sort()).toEqual([...JOB_STATUSES].sort());
    expect(UNFINISHED_JOB_STATUSES.filter((s) => (FINISHED_JOB_STATUSES as readonly string[]).includes(s))).toEqual([]);
  });

  it('the SQL predicate names exactly the unfinished ones', () => {
    const named = [...UNFINISHED_JOB_PREDICATE.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(named).toEqual([...UNFINISHED_JOB_STATUSES]);
    expect(UNFINISHED_JOB_PREDICATE).toMatch(/^status in \(/);
  });
});
