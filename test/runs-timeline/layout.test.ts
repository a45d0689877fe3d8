import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LANE_PADDING,
  LANE_ROW_HEIGHT,
  MIN_BAR_WIDTH,
  assignRows,
  barLabel,
  fitDomain,
  formatSpan,
  layoutTimeline,
  runEnd,
  runStart,
  timeTicks,
  timeToX,
} from '@/components/runs-timeline/layout';
import type { ApiTeamRun } from '@/lib/types/team-runs';

const T0 = Date.parse('2026-12-01T12:00:00.000Z');
const zero = { inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 };
const iso = (t: number) => new Date(t).toISOString();
const run = (id: string, memberId: string, start: number, end: number | null, extra: Partial<ApiTeamRun> = {}): ApiTeamRun => ({
  runId: id,
  memberId,
  jobId: null,
  jobKind: null,
  status: end === null ? 'running' : 'success',
  outcome: end === null ? null : 'completed',
  stopReason: null,
  createdAt: iso(start),
  startedAt: iso(start),
  finishedAt: end === null ? null : iso(end),
  tokens: zero,
  cost: null,
  fingerprint: null,
  ...extra,
});

const runsArb = (members: string[]) =>
  fc.array(
    fc.record({ member: fc.constantFrom(...members), start: fc.integer({ min: 0, max: 600_000 }), len: fc.integer({ min: 0, max: 120_000 }), open: fc.boolean() }),
    { maxLength: 40 },
  ).map((list) => list.map((r, i) => run(`r${i}`, r.member, T0 + r.start, r.open ? null : T0 + r.start + r.len)));

describe('timeToX', () => {
  it('maps the domain linearly onto [0, width] and clamps outside it', () => {
    const d = { start: T0, end: T0 + 10_000 };
    expect(timeToX(T0, d, 500)).toBe(0);
    expect(timeToX(T0 + 10_000, d, 500)).toBe(500);
    expect(timeToX(T0 + 2_500, d, 500)).toBe(125);
    expect(timeToX(T0 - 1, d, 500)).toBe(0);
    expect(timeToX(T0 + 10_001, d, 500)).toBe(500);
  });

  it('is monotone and stays inside the plot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: 1, max: 5_000 }), fc.integer(), fc.integer(), (span, width, a, b) => {
        const d = { start: T0, end: T0 + span };
        const xa = timeToX(T0 + a, d, width);
        const xb = timeToX(T0 + b, d, width);
        expect(xa).toBeGreaterThanOrEqual(0);
        expect(xa).toBeLessThanOrEqual(width);
        if (a <= b) expect(xa).toBeLessThanOrEqual(xb);
      }),
    );
  });
});

describe('assignRows', () => {
  it('gives each member a lane in roster order, one row while its runs do not overlap', () => {
    const runs = [run('a1', 'A', T0, T0 + 1_000), run('b1', 'B', T0, T0 + 5_000), run('a2', 'A', T0 + 1_000, T0 + 2_000)];
    const rows = assignRows(runs, ['A', 'B'], T0 + 10_000);
    expect(rows.get('a1')).toEqual({ lane: 0, row: 0 });
    expect(rows.get('a2')).toEqual({ lane: 0, row: 0 });
    expect(rows.get('b1')).toEqual({ lane: 1, row: 0 });
    expect(rows.rowsPerLane).toEqual([1, 1]);
  });

  it('stacks overlapping runs of one member, leaves unknown members out, and an empty lane keeps one row', () => {
    const runs = [run('a1', 'A', T0, T0 + 3_000), run('a2', 'A', T0 + 1_000, null), run('x', 'X', T0, T0 + 1)];
    const rows = assignRows(runs, ['A', 'B'], T0 + 10_000);
    expect(rows.get('a2')).toEqual({ lane: 0, row: 1 });
    expect(rows.has('x')).toBe(false);
    expect(rows.rowsPerLane).toEqual([2, 1]);
  });

  it('never puts two overlapping runs in one row, and uses as many rows as runs at once at most', () => {
    fc.assert(
      fc.property(runsArb(['A', 'B', 'C']), (runs) => {
        const now = T0 + 800_000;
        const rows = assignRows(runs, ['A', 'B', 'C'], now);
        for (const a of runs) {
          for (const b of runs) {
            if (a === b) continue;
            const ra = rows.get(a.runId)!;
            const rb = rows.get(b.runId)!;
            if (ra.lane !== rb.lane || ra.row !== rb.row) continue;
            const overlap = runStart(a) < runEnd(b, now) && runStart(b) < runEnd(a, now);
            expect(overlap).toBe(false);
          }
        }
        ['A', 'B', 'C'].forEach((m, lane) => {
          const mine = runs.filter((r) => r.memberId === m);
          // The most of this member's runs in progress at any run's start; a run counts itself there even when it
          // lasted no time at all (a zero-length run still overlaps one that started before it and is still going).
          const peak = Math.max(1, ...mine.map((r) => mine.filter((o) => o === r || (runStart(o) <= runStart(r) && runEnd(o, now) > runStart(r))).length));
          expect(rows.rowsPerLane[lane]).toBeLessThanOrEqual(peak);
        });
      }),
    );
  });
});

describe('layoutTimeline', () => {
  const members = [
    { id: 'A', name: 'Research', tokens: zero, cost: { usd: '0.00', unknownRuns: 0 } },
    { id: 'B', name: 'Review', tokens: zero, cost: { usd: '0.00', unknownRuns: 0 } },
  ];

  it('draws bars from start to end in their lanes and a link from the sending bar to the receiving one', () => {
    const runs = [run('a1', 'A', T0, T0 + 8_000), run('b1', 'B', T0 + 4_000, T0 + 6_000)];
    const handoffs = [{ jobId: 'j', fromMemberId: 'A', toMemberId: 'B', at: iso(T0 + 2_000), fromRunId: 'a1', toRunId: 'b1' }];
    const layout = layoutTimeline({ members, runs, handoffs }, { start: T0, end: T0 + 10_000 }, 1_000, T0 + 10_000);
    const [a1, b1] = layout.bars;
    expect(a1).toMatchObject({ lane: 0, x: 0, width: 800, y: LANE_PADDING });
    const laneHeight = LANE_ROW_HEIGHT + 2 * LANE_PADDING;
    expect(b1).toMatchObject({ lane: 1, x: 400, width: 200, y: laneHeight + LANE_PADDING });
    expect(layout.lanes.map((l) => [l.name, l.y, l.height])).toEqual([
      ['Research', 0, laneHeight],
      ['Review', laneHeight, laneHeight],
    ]);
    expect(layout.height).toBe(2 * laneHeight);
    expect(layout.links).toHaveLength(1);
    expect(layout.links[0]!.from.x).toBe(200);
    expect(layout.links[0]!.to.x).toBe(400);
    expect(layout.links[0]!.to.y).toBeGreaterThan(layout.links[0]!.from.y);
  });

  it('draws no link whose sender is the person or whose run is outside the data', () => {
    const runs = [run('b1', 'B', T0, T0 + 1_000)];
    const handoffs = [
      { jobId: 'p', fromMemberId: null, toMemberId: 'B', at: iso(T0), fromRunId: null, toRunId: 'b1' },
      { jobId: 'q', fromMemberId: 'A', toMemberId: 'B', at: iso(T0), fromRunId: 'gone', toRunId: 'b1' },
    ];
    const layout = layoutTimeline({ members, runs, handoffs }, { start: T0, end: T0 + 10_000 }, 500, T0);
    expect(layout.links).toEqual([]);
    // The person's request is marked at the start of the recipient's bar instead.
    expect(layout.personRequests).toEqual([{ handoff: handoffs[0], x: 0, y: layout.bars[0]!.y }]);
  });

  it('keeps every bar at least MIN_BAR_WIDTH wide and inside the plot; a running bar reaches now', () => {
    fc.assert(
      fc.property(runsArb(['A', 'B']), fc.integer({ min: 50, max: 3_000 }), (runs, width) => {
        const now = T0 + 800_000;
        const layout = layoutTimeline({ members, runs, handoffs: [] }, { start: T0, end: now }, width, now);
        expect(layout.bars).toHaveLength(runs.length);
        for (const bar of layout.bars) {
          expect(bar.width).toBeGreaterThanOrEqual(MIN_BAR_WIDTH);
          expect(bar.x).toBeGreaterThanOrEqual(0);
          expect(bar.x + bar.width).toBeLessThanOrEqual(width + 1e-9);
          if (bar.open) expect(bar.x + bar.width).toBeCloseTo(width, 6);
        }
      }),
    );
  });
});

describe('fitDomain', () => {
  const window = { start: T0 - 86_400_000, end: T0 + 3_600_000 };

  it('is the whole window without runs, and the runs with a margin otherwise, inside the window', () => {
    expect(fitDomain([], window, T0)).toEqual(window);
    const d = fitDomain([run('a', 'A', T0, T0 + 100_000)], window, T0 + 200_000);
    expect(d.start).toBeLessThan(T0);
    expect(d.end).toBeGreaterThan(T0 + 100_000);
    expect(d.end - d.start).toBeLessThan(200_000);
    fc.assert(
      fc.property(runsArb(['A']), (runs) => {
        const fit = fitDomain(runs, window, T0 + 900_000);
        expect(fit.start).toBeGreaterThanOrEqual(window.start);
        expect(fit.end).toBeLessThanOrEqual(window.end);
        expect(fit.end - fit.start).toBeGreaterThanOrEqual(10_000);
      }),
    );
  });
});

describe('timeTicks', () => {
  it('puts round ticks inside the domain, evenly spaced, no more than asked', () => {
    expect(timeTicks({ start: T0, end: T0 + 10_000 }, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((s) => T0 + s * 1_000));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1_000, max: 31 * 86_400_000 }), fc.integer({ min: 1, max: 20 }), (start, span, max) => {
        const ticks = timeTicks({ start, end: start + span }, max);
        expect(ticks.length).toBeLessThanOrEqual(max + 1);
        for (const t of ticks) {
          expect(t).toBeGreaterThanOrEqual(start);
          expect(t).toBeLessThanOrEqual(start + span);
        }
        const steps = new Set(ticks.slice(1).map((t, i) => t - ticks[i]!));
        expect(steps.size).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('labels', () => {
  it('formats spans', () => {
    expect(formatSpan(350)).toBe('350 ms');
    expect(formatSpan(5_000)).toBe('5 s');
    expect(formatSpan(125_000)).toBe('2 min 5 s');
    expect(formatSpan(120_000)).toBe('2 min');
    expect(formatSpan(3_840_000)).toBe('1 h 4 min');
    expect(formatSpan(-1)).toBe('—');
  });

  it('names a bar by member, outcome, times, duration and tokens', () => {
    const start = new Date(2026, 11, 1, 12, 3, 4).getTime();
    const r = run('a', 'A', start, start + 5_000, { tokens: { inputTokens: 1_000, outputTokens: 234, modelCalls: 2, unreportedCalls: 0 } });
    expect(barLabel(r, 'Review', start + 60_000)).toBe('Review, completed, 12:03:04–12:03:09, 5 s, 1,234 tokens');
    const live = run('b', 'A', start, null);
    expect(barLabel(live, 'Review', start + 2_000)).toBe('Review, running, 12:03:04–now, 2 s, 0 tokens');
    expect(runEnd(live, start + 2_000)).toBe(start + 2_000);
  });
});
