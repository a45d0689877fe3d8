import { describe, expect, it } from 'vitest';
import type { JobRow, RunRow } from '@/scripts/crash/facts';
import { checkFairness } from '@/scripts/crash/fairness';

// The crash test's owner-fairness check (scripts/crash/fairness.ts) over hand-made durable rows.

const limits = { maxActive: 8, perOwnerWhenShared: 6 };
let n = 0;

/** A job of `owner` admitted at `admittedAt` whose run is in flight over [from, to). */
function admitted(owner: string, admittedAt: number, from: number, to: number | null): { job: JobRow; run: RunRow } {
  const id = `j${++n}`;
  const conversation = `c${n}`;
  const job = {
    id,
    text: '',
    team_id: `team-${owner}`,
    owner_id: owner,
    kind: 'request',
    member_id: 'm',
    conversation_id: conversation,
    source_member_id: null,
    parent_id: null,
    status: 'completed',
    request_key: id,
    run_key: `job:${id}:start`,
    run_id: `r${n}`,
    answer_key: null,
    result: null,
    error: null,
    created_at: admittedAt - 1,
    admitted_at: admittedAt,
    completed_at: to,
  } satisfies JobRow;
  const run = { id: `r${n}`, conversation_id: conversation, owner_id: owner, idempotency_key: `job:${id}:start`, status: 'success', kind: 'start', created_at: from, finished_at: to } satisfies RunRow;
  return { job, run };
}

function check(rows: Array<{ job: JobRow; run: RunRow }>) {
  return checkFairness(
    rows.map((r) => r.job),
    rows.map((r) => r.run),
    limits,
  );
}

/** `count` jobs of `owner` admitted at 100…, each in flight from 100 + i to 10_000. */
const holding = (owner: string, count: number) => Array.from({ length: count }, (_, i) => admitted(owner, 100 + i, 101 + i, 10_000));

describe('crash test fairness: the global cap', () => {
  it('accepts exactly the cap of runs in flight at once, and flags one more', () => {
    const atCap = check([...holding('a', 4), ...holding('b', 4)]);
    expect(atCap.maxInFlight).toBe(8);
    expect(atCap.violations).toEqual([]);

    const past = check([...holding('a', 4), ...holding('b', 4), admitted('b', 500, 501, 600)]);
    expect(past.maxInFlight).toBe(9);
    expect(past.violations).toHaveLength(1);
    expect(past.violations[0]).toMatch(/9 job runs in flight .* cap of 8/);
  });

  it('frees a slot at the instant a run ends (a run starting then does not overlap it)', () => {
    const rows = [...holding('a', 7), admitted('b', 200, 201, 300), admitted('b', 300, 300, 400)];
    const result = check(rows);
    expect(result.maxInFlight).toBe(8);
    expect(result.violations).toEqual([]);
  });

  it('counts an unfinished run as in flight for ever', () => {
    const result = check([...holding('a', 4), ...holding('b', 4), admitted('a', 20_000, 20_001, null), admitted('b', 5, 6, null)]);
    expect(result.maxInFlight).toBe(9);
    expect(result.violations).toHaveLength(1);
  });
});

describe('crash test fairness: the shared cap', () => {
  it('accepts an admission that brings an owner to the shared cap while another owner holds a slot', () => {
    const result = check([...holding('b', 1), ...holding('a', 5), admitted('a', 1_000, 1_001, 2_000)]);
    expect(result.violations).toEqual([]);
    expect(result.maxOwnerWhileShared).toBe(6);
  });

  it('flags an admission one past the shared cap while another owner holds a slot', () => {
    const result = check([...holding('b', 1), ...holding('a', 6), admitted('a', 1_000, 1_001, 2_000)]);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]).toMatch(/owner a .* 6 runs in flight \(shared cap 6\) and other owners had 1/);
    expect(result.maxOwnerWhileShared).toBe(7);
  });

  it('lets a lone owner go past the shared cap', () => {
    const result = check([...holding('a', 6), admitted('a', 1_000, 1_001, 2_000)]);
    expect(result.violations).toEqual([]);
    expect(result.maxOwnerWhileShared).toBe(0);
  });

  it('does not blame an admission for another owner who arrived after it', () => {
    // a reaches 7 alone; b's run starts only after a's 7th admission (b takes the 8th slot: legitimate).
    const result = check([...holding('a', 6), admitted('a', 1_000, 1_001, 5_000), admitted('b', 1_002, 1_003, 5_000)]);
    expect(result.violations).toEqual([]);
  });

  it('does not count the admitted job’s own run against it', () => {
    // The admitted job's run was created at its admission instant (a fast launch): still 5 others, not 6.
    const result = check([...holding('b', 1), ...holding('a', 5), admitted('a', 1_000, 1_000, 2_000)]);
    expect(result.violations).toEqual([]);
  });

  it('skips admissions whose time is not durable', () => {
    const late = admitted('a', 1_000, 1_001, 2_000);
    const result = check([...holding('b', 1), ...holding('a', 6), { ...late, job: { ...late.job, admitted_at: null } }]);
    expect(result.violations).toEqual([]);
    expect(result.admissionsChecked).toBe(7);
  });
});
