import { describe, expect, it } from 'vitest';
import { liveLabel } from '@/components/ui/live-status';
import { jobTotals } from '@/components/runs-timeline/job-totals';
import { hasUnfinishedRuns, parseTeamRevision } from '@/components/runs-timeline/runs-push';
import { liveConnection, livePoll } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { PushStreamStatus } from '@/lib/push-stream';

// As use-team-runs-push.ts follows the team's stream: its cadence, and a stream stopped for good stops.
const FALLBACK_REFETCH_MS = LIVE_FALLBACK_MS.runsTimeline;
const timelineConnection = (s: PushStreamStatus) => liveConnection(s, FALLBACK_REFETCH_MS, 'stop');
const fallbackInterval = (s: PushStreamStatus) => livePoll(timelineConnection(s), FALLBACK_REFETCH_MS).refetchInterval;
import type { ApiTeamRun } from '@/lib/types/team-runs';

describe('the Runs page by push', () => {
  it("accepts this team's revision and refuses anything else from the wire", () => {
    expect(parseTeamRevision(JSON.stringify({ teamId: 't1', revision: 7, jobIds: ['j'] }), 't1')).toBe(7);
    expect(parseTeamRevision(JSON.stringify({ teamId: 't1', revision: 0, jobIds: null }), 't1')).toBe(0);
    for (const raw of [
      JSON.stringify({ teamId: 't2', revision: 7 }),
      JSON.stringify({ teamId: 't1', revision: -1 }),
      JSON.stringify({ teamId: 't1', revision: 1.5 }),
      JSON.stringify({ teamId: 't1', revision: '7' }),
      JSON.stringify({ teamId: 't1' }),
      'null',
      '7',
      'not json',
    ]) {
      expect(parseTeamRevision(raw, 't1'), raw).toBeNull();
    }
  });

  it('re-reads on a timer only while the stream is down, running or not, and says so', () => {
    expect(fallbackInterval({ state: 'open' })).toBe(false);
    expect(fallbackInterval({ state: 'connecting' })).toBe(false);
    expect(fallbackInterval({ state: 'closed', status: 404 })).toBe(false);
    for (const retryInMs of [750, 8_000]) {
      const down: PushStreamStatus = { state: 'down', failures: 2, retryInMs };
      expect(fallbackInterval(down)).toBe(3_000);
      expect(liveLabel(timelineConnection(down))).toBe('Reconnecting — checking every 3 s');
    }
    expect(liveLabel(timelineConnection({ state: 'open' }))).toBe('Live');
    expect(liveLabel(timelineConnection({ state: 'closed', status: 404 }))).toBe('Disconnected · this team is gone');
  });

  it('keeps running bars growing only while a run is unfinished', () => {
    const base = { runs: [run('a', 'm1', 'j1', 'request', 0, 10)] };
    expect(hasUnfinishedRuns(undefined)).toBe(false);
    expect(hasUnfinishedRuns(base as never)).toBe(false);
    expect(hasUnfinishedRuns({ runs: [...base.runs, run('b', 'm1', null, null, 20, null)] } as never)).toBe(true);
  });
});

const T0 = Date.parse('2026-12-01T12:00:00.000Z');
function run(id: string, memberId: string, jobId: string | null, jobKind: ApiTeamRun['jobKind'], start: number, end: number | null, tokens = [0, 0, 0, 0], cost: string | null = null): ApiTeamRun {
  const [inputTokens, outputTokens, modelCalls, unreportedCalls] = tokens as [number, number, number, number];
  return {
    runId: id,
    memberId,
    jobId,
    jobKind,
    status: end === null ? 'running' : 'success',
    outcome: end === null ? null : 'completed',
    stopReason: null,
    createdAt: new Date(T0 + start).toISOString(),
    startedAt: new Date(T0 + start).toISOString(),
    finishedAt: end === null ? null : new Date(T0 + end).toISOString(),
    tokens: { inputTokens, outputTokens, modelCalls, unreportedCalls },
    cost,
    fingerprint: null,
  };
}

describe('jobTotals', () => {
  it('sums every run of a job (a clarification answer runs it again), by its first start; direct chats are no job', () => {
    const runs = [
      run('r3', 'm2', 'j2', 'request', 5_000, 6_000, [10, 1, 1, 0]),
      run('r1', 'm1', 'j1', 'request', 1_000, 2_000, [100, 10, 2, 0]),
      run('r2', 'm1', null, null, 3_000, 4_000, [999, 999, 9, 0]),
      run('r4', 'm1', 'j1', 'request', 8_000, null, [50, 5, 1, 1]),
      run('r5', 'm1', 'j3', 'receipt', 9_000, 9_500, [7, 0, 1, 0]),
    ];
    expect(jobTotals({ runs })).toEqual([
      { jobId: 'j1', memberId: 'm1', jobKind: 'request', runs: 2, start: T0 + 1_000, tokens: { inputTokens: 150, outputTokens: 15, modelCalls: 3, unreportedCalls: 1 }, cost: { usd: '0.00', unknownRuns: 1 }, unfinished: 1 },
      { jobId: 'j2', memberId: 'm2', jobKind: 'request', runs: 1, start: T0 + 5_000, tokens: { inputTokens: 10, outputTokens: 1, modelCalls: 1, unreportedCalls: 0 }, cost: { usd: '0.00', unknownRuns: 1 }, unfinished: 0 },
      { jobId: 'j3', memberId: 'm1', jobKind: 'receipt', runs: 1, start: T0 + 9_000, tokens: { inputTokens: 7, outputTokens: 0, modelCalls: 1, unreportedCalls: 0 }, cost: { usd: '0.00', unknownRuns: 1 }, unfinished: 0 },
    ]);
    // The runs' own totals are not changed by summing.
    expect(runs[1]!.tokens).toEqual({ inputTokens: 100, outputTokens: 10, modelCalls: 2, unreportedCalls: 0 });
    expect(jobTotals({ runs: [] })).toEqual([]);
  });

  it("a job's cost is its finished runs' known costs summed exactly; an unknown one is counted apart, never as 0, and a running one is priced later", () => {
    const runs = [
      run('a', 'm1', 'j1', 'request', 0, 1_000, [10, 1, 1, 0], '0.1'),
      run('b', 'm1', 'j1', 'request', 2_000, 3_000, [10, 1, 1, 0], '0.2'),
      run('c', 'm1', 'j1', 'request', 4_000, 5_000, [10, 1, 1, 1], null),
      run('d', 'm1', 'j1', 'request', 6_000, null, [10, 1, 1, 0], null),
      run('e', 'm2', 'j2', 'request', 0, 1_000, [1, 1, 1, 0], '0.000000001'),
      run('f', 'm2', 'j2', 'request', 2_000, 3_000, [1, 1, 1, 0], '9007199.254740990'),
    ];
    const [j1, j2] = jobTotals({ runs });
    // 0.1 + 0.2 in binary floating point is 0.30000000000000004: what must not happen.
    expect(j1).toMatchObject({ runs: 4, cost: { usd: '0.30', unknownRuns: 1 }, unfinished: 1 });
    expect(j2).toMatchObject({ runs: 2, cost: { usd: '9007199.254740991', unknownRuns: 0 }, unfinished: 0 });
  });
});
