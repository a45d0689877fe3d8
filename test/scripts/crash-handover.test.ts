import { describe, expect, it } from 'vitest';
import type { JobRow, RunRow } from '@/scripts/crash/facts';
import { handovers } from '@/scripts/crash/handover';

const job = (id: string, team: string, created: number, completed: number | null): JobRow => ({
  id,
  text: '',
  team_id: team,
  owner_id: 'o',
  kind: 'request',
  member_id: 'm',
  conversation_id: `conv-${id}`,
  source_member_id: null,
  parent_id: null,
  status: completed == null ? 'running' : 'completed',
  request_key: id,
  run_key: null,
  run_id: null,
  answer_key: null,
  result: null,
  error: null,
  created_at: created,
  admitted_at: null,
  completed_at: completed,
});
const run = (conversation: string, finished: number | null, processId?: string): RunRow => ({
  id: `r-${conversation}-${finished}`,
  conversation_id: conversation,
  owner_id: 'o',
  idempotency_key: 'job:x:start',
  status: 'success',
  kind: 'start',
  created_at: 0,
  finished_at: finished,
  process_id: processId,
});

describe('crash test handover', () => {
  const jobs = [job('a', 'team-a', 100, 1_500), job('b', 'team-b', 100, 1_200), job('done', 'team-c', 100, 900)];

  it('measures from the kill to the first progress of a team the process held that had work pending', () => {
    const result = handovers([{ process: 1, killedAt: 1_000, healthyAt: 5_000, teams: ['team-a'], processId: null }], jobs, [run('conv-a', 1_300)]);
    expect(result).toEqual([{ process: 1, ms: 300, byAnother: true }]);
  });

  it('ignores teams the process did not hold, and progress before the kill', () => {
    const result = handovers([{ process: 0, killedAt: 1_000, healthyAt: 1_400, teams: ['team-a', 'team-c'], processId: null }], jobs, [run('conv-a', 999), run('conv-b', 1_100)]);
    expect(result).toEqual([{ process: 0, ms: 500, byAnother: false }]);
  });

  it('counts every team when the leases are unknown, and reports nothing for a kill with no work pending', () => {
    expect(handovers([{ process: 0, killedAt: 1_000, healthyAt: 3_000, teams: null, processId: null }], jobs, [])).toEqual([{ process: 0, ms: 200, byAnother: true }]);
    expect(handovers([{ process: 0, killedAt: 2_000, healthyAt: 3_000, teams: null, processId: null }], jobs, [])).toEqual([]);
  });

  it('counts only runs another process finished when runs record their process', () => {
    const kill = { process: 2, killedAt: 1_000, healthyAt: 1_100, teams: ['team-a', 'team-b'], processId: 'p-killed' };
    const runs = [run('conv-b', 1_050, 'p-killed'), run('conv-a', 1_250, 'p-restarted'), run('conv-b', 1_300, 'p-other')];
    expect(handovers([kill], jobs, runs)).toEqual([{ process: 2, ms: 250, byAnother: true }]);
    expect(handovers([kill], jobs, [run('conv-b', 1_050, 'p-killed')])).toEqual([]);
  });
});
