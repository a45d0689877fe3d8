import { describe, expect, it } from 'vitest';
import type { JobRow, RunRow } from '@/scripts/crash/facts';
import { describePhases, handovers, parseTakeovers, phasesOf } from '@/scripts/crash/handover';
import { handoverLine } from '@/server/cluster/handover-log';

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
    const kill = { process: 1, killedAt: 1_000, healthyAt: 5_000, teams: ['team-a'], processId: null };
    const result = handovers([kill], jobs, [run('conv-a', 1_300)]);
    expect(result).toEqual([{ process: 1, ms: 300, byAnother: true, runId: 'r-conv-a-1300', kill }]);
  });

  it('ignores teams the process did not hold, and progress before the kill', () => {
    const kill = { process: 0, killedAt: 1_000, healthyAt: 1_400, teams: ['team-a', 'team-c'], processId: null };
    const result = handovers([kill], jobs, [run('conv-a', 999), run('conv-b', 1_100)]);
    // team-a's job completed at 1 500: the progress is the job, not a run.
    expect(result).toEqual([{ process: 0, ms: 500, byAnother: false, runId: null, kill }]);
  });

  it('counts every team when the leases are unknown, and reports nothing for a kill with no work pending', () => {
    const kill = { process: 0, killedAt: 1_000, healthyAt: 3_000, teams: null, processId: null };
    expect(handovers([kill], jobs, [])).toEqual([{ process: 0, ms: 200, byAnother: true, runId: null, kill }]);
    expect(handovers([{ process: 0, killedAt: 2_000, healthyAt: 3_000, teams: null, processId: null }], jobs, [])).toEqual([]);
  });

  it('counts only runs another process finished when runs record their process', () => {
    const kill = { process: 2, killedAt: 1_000, healthyAt: 1_100, teams: ['team-a', 'team-b'], processId: 'p-killed' };
    const runs = [run('conv-b', 1_050, 'p-killed'), run('conv-a', 1_250, 'p-restarted'), run('conv-b', 1_300, 'p-other')];
    expect(handovers([kill], jobs, runs)).toEqual([{ process: 2, ms: 250, byAnother: true, runId: 'r-conv-a-1250', kill }]);
    expect(handovers([kill], jobs, [run('conv-b', 1_050, 'p-killed')])).toEqual([]);
  });
});

describe('crash test handover phases', () => {
  const jobs = [job('a', 'team-a', 100, null)];
  const kill = { process: 1, killedAt: 10_000, healthyAt: 30_000, teams: ['team-a'], processId: 'p-killed' };
  const progressRun = { ...run('conv-a', 21_000, 'p-other'), created_at: 9_500 };
  const logs = [
    [
      'ready on :3000',
      handoverLine('run', progressRun.id, 'p-killed', 'p-other', 15_800),
      handoverLine('team', 'team-a', 'p-killed', 'p-other', 16_100),
      // Another process's takeover, and one of the killed process's from before this kill: neither is this handover's.
      handoverLine('run', 'r-elsewhere', 'p-third', 'p-other', 14_000),
      handoverLine('team', 'team-z', 'p-killed', 'p-other', 9_000),
      '[handover] run malformed line',
    ].join('\n'),
  ];

  it('reads the servers’ takeover lines and only those', () => {
    const takeovers = parseTakeovers(logs);
    expect(takeovers.map((t) => `${t.what} ${t.id} ${t.from}→${t.by} ${t.at}`)).toEqual([
      `run ${progressRun.id} p-killed→p-other 15800`,
      'team team-a p-killed→p-other 16100',
      'run r-elsewhere p-third→p-other 14000',
      'team team-z p-killed→p-other 9000',
    ]);
  });

  it('splits kill → first progress into last beat, lease out, takeovers and the run that progressed', () => {
    const [handover] = handovers([kill], jobs, [progressRun]);
    const phases = phasesOf(handover!, [progressRun], parseTakeovers(logs), new Map([['p-killed', 9_400]]), 5_000);
    expect(phases).toEqual({
      lastBeat: -600,
      leaseOut: 4_400,
      firstRunTaken: 5_800,
      firstTeamTaken: 6_100,
      progressRunCreated: -500,
      progressRunTaken: 5_800,
      progressRunTakeovers: 1,
      interruptedAt: null,
      progress: 11_000,
    });
    expect(describePhases(phases)).toBe(
      'last beat -0.6 s, lease out +4.4 s, first run taken +5.8 s, first team taken +6.1 s; first progress +11.0 s (its run created -0.5 s, taken over +5.8 s, finished after 5.2 s)',
    );
  });

  it('tells a run whose taker was killed before it finished (taken over twice), and only such a kill', () => {
    const late = { ...progressRun, finished_at: 24_000 };
    const [handover] = handovers([kill], jobs, [late]);
    const second = { process: 2, killedAt: 17_000, healthyAt: 19_000, teams: [], processId: 'p-other' };
    const bystander = { process: 0, killedAt: 16_500, healthyAt: 18_000, teams: [], processId: 'p-third' };
    const chain = parseTakeovers([...logs, handoverLine('run', late.id, 'p-other', 'p-fourth', 22_100)]);
    const phases = phasesOf(handover!, [late], chain, new Map([['p-killed', 9_400]]), 5_000, [kill, bystander, second]);
    expect(phases).toMatchObject({ progressRunTaken: 5_800, progressRunTakeovers: 2, interruptedAt: 7_000, progress: 14_000 });
    expect(describePhases(phases)).toContain('its executor was killed +7.0 s and the run taken over again (2 takeovers)');
    // Must not happen: a kill of a process that never took the run (or took it only after that kill) counted as
    // interrupting it.
    expect(phasesOf(handover!, [late], chain, new Map(), 5_000, [kill, bystander]).interruptedAt).toBeNull();
    const fourthKilledFirst = { process: 1, killedAt: 12_000, healthyAt: 13_000, teams: [], processId: 'p-fourth' };
    expect(phasesOf(handover!, [late], chain, new Map(), 5_000, [kill, fourthKilledFirst]).interruptedAt).toBeNull();
  });

  it('tells a run started after the kill by a process that was killed too before it finished', () => {
    // p-other took team-a over and started a new run at 15 000; p-other was killed at 17 000 and p-fourth took the
    // run over at 22 100 and finished it at 24 000.
    const started = { ...run('conv-a', 24_000, 'p-fourth'), created_at: 15_000 };
    const [handover] = handovers([kill], jobs, [started]);
    const second = { process: 2, killedAt: 17_000, healthyAt: 19_000, teams: [], processId: 'p-other' };
    const chain = parseTakeovers([handoverLine('team', 'team-a', 'p-killed', 'p-other', 15_000), handoverLine('run', started.id, 'p-other', 'p-fourth', 22_100)]);
    const phases = phasesOf(handover!, [started], chain, new Map(), 5_000, [kill, second]);
    expect(phases).toMatchObject({ progressRunTaken: null, progressRunTakeovers: 1, interruptedAt: 7_000, progress: 14_000 });
    expect(describePhases(phases)).toContain('a run created +5.0 s, not taken from the killed process; its executor was killed +7.0 s and the run taken over (1 takeovers)');
  });

  it('leaves unknown what was not recorded (no beat row, no takeover line)', () => {
    const [handover] = handovers([kill], jobs, [progressRun]);
    const phases = phasesOf(handover!, [progressRun], [], new Map(), 5_000);
    expect(phases).toMatchObject({ lastBeat: null, leaseOut: null, firstRunTaken: null, firstTeamTaken: null, progressRunTaken: null, progress: 11_000 });
    expect(describePhases(phases)).toContain('(a run created -0.5 s, not taken from the killed process)');
  });
});
