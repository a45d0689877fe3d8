/**
 * Pure layout of the runs timeline: time → x, one lane per member (runs that overlap inside a lane get rows of
 * their own), bar geometry, handoff links and axis ticks. No React, no DOM: unit-tested in test/runs-timeline/.
 */
import type { RunOutcome, TokenTotals } from '@/lib/types/run-events';
import type { ApiTeamHandoff, ApiTeamRun, ApiTeamRuns } from '@/lib/types/team-runs';
import { formatCount } from '@/components/runs/step-items';

export { formatCount };

export const LANE_ROW_HEIGHT = 28;
export const LANE_PADDING = 8;
/** A run shorter than a pixel or two is still a bar a person can see, hover and focus. */
export const MIN_BAR_WIDTH = 6;
/** The narrowest the time axis gets: below it the lanes scroll sideways inside their region. */
export const MIN_PLOT_WIDTH = 640;
/** The axis never shows less than this span, so one instant run isn't stretched across the page. */
const MIN_DOMAIN_MS = 10_000;

export type Domain = { start: number; end: number };

/** x for a time, linear over the domain and clamped to [0, width]. */
export function timeToX(t: number, domain: Domain, width: number): number {
  const span = domain.end - domain.start;
  if (span <= 0) return 0;
  return Math.min(width, Math.max(0, ((t - domain.start) / span) * width));
}

/** When a run's bar starts: when it started, or (still pending) when it was asked for. */
export const runStart = (r: Pick<ApiTeamRun, 'startedAt' | 'createdAt'>) => Date.parse(r.startedAt ?? r.createdAt);
/** When its bar ends: when it finished, or `now` while it is unfinished. */
export const runEnd = (r: Pick<ApiTeamRun, 'finishedAt'>, now: number) => (r.finishedAt ? Date.parse(r.finishedAt) : now);

/**
 * The span the axis shows: the runs' own extent with a margin (so a minute of work in a 24-hour window is
 * readable), never outside the fetched window, never shorter than MIN_DOMAIN_MS. No runs: the whole window.
 */
export function fitDomain(runs: ApiTeamRun[], window: Domain, now: number): Domain {
  if (runs.length === 0) return window;
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of runs) {
    lo = Math.min(lo, runStart(r));
    hi = Math.max(hi, runEnd(r, now));
  }
  lo = Math.max(lo, window.start);
  hi = Math.min(Math.max(hi, lo), window.end);
  const margin = Math.max((hi - lo) * 0.05, 1_000);
  let start = Math.max(window.start, lo - margin);
  let end = Math.min(window.end, hi + margin);
  if (end - start < MIN_DOMAIN_MS) {
    const mid = (start + end) / 2;
    start = Math.max(window.start, mid - MIN_DOMAIN_MS / 2);
    end = Math.min(window.end, start + MIN_DOMAIN_MS);
    start = Math.max(window.start, end - MIN_DOMAIN_MS);
  }
  return { start, end };
}

export type Bar = {
  run: ApiTeamRun;
  lane: number;
  /** Row inside the lane: 0 unless runs of the same member overlap. */
  row: number;
  x: number;
  width: number;
  y: number;
  /** The run began before the visible span / is still going: its bar is cut at that edge. */
  cutStart: boolean;
  open: boolean;
};

export type Lane = { memberId: string; name: string; index: number; rows: number; y: number; height: number; tokens: TokenTotals };

export type TimelineLayout = { lanes: Lane[]; bars: Bar[]; links: Link[]; personRequests: PersonRequest[]; height: number; width: number; domain: Domain };

/** A request from the person (who has no lane): marked at the start of the recipient's bar. */
export type PersonRequest = { handoff: ApiTeamHandoff; x: number; y: number };

export type Link = { handoff: ApiTeamHandoff; from: { x: number; y: number }; to: { x: number; y: number } };

/**
 * Assign every run to its member's lane and, inside the lane, to the first row whose last bar ended before it
 * starts (greedy interval partitioning: rows = the most runs of that member running at once).
 */
export function assignRows(runs: ApiTeamRun[], memberIds: string[], now: number): Map<string, { lane: number; row: number }> & { rowsPerLane: number[] } {
  const laneOf = new Map(memberIds.map((id, i) => [id, i]));
  const rowEnds: number[][] = memberIds.map(() => []);
  const out = new Map<string, { lane: number; row: number }>() as Map<string, { lane: number; row: number }> & { rowsPerLane: number[] };
  const ordered = [...runs].sort((a, b) => runStart(a) - runStart(b) || runEnd(a, now) - runEnd(b, now) || a.runId.localeCompare(b.runId));
  for (const run of ordered) {
    const lane = laneOf.get(run.memberId);
    if (lane === undefined) continue;
    const ends = rowEnds[lane]!;
    const start = runStart(run);
    let row = ends.findIndex((end) => end <= start);
    if (row === -1) row = ends.push(0) - 1;
    ends[row] = runEnd(run, now);
    out.set(run.runId, { lane, row });
  }
  out.rowsPerLane = rowEnds.map((ends) => Math.max(1, ends.length));
  return out;
}

/** Everything the timeline draws, in pixels, for a plot `width` wide. */
export function layoutTimeline(data: Pick<ApiTeamRuns, 'members' | 'runs' | 'handoffs'>, domain: Domain, width: number, now: number): TimelineLayout {
  const rows = assignRows(data.runs, data.members.map((m) => m.id), now);
  let y = 0;
  const lanes: Lane[] = data.members.map((m, index) => {
    const laneRows = rows.rowsPerLane[index]!;
    const height = laneRows * LANE_ROW_HEIGHT + LANE_PADDING * 2;
    const lane = { memberId: m.id, name: m.name, index, rows: laneRows, y, height, tokens: m.tokens };
    y += height;
    return lane;
  });
  const bars: Bar[] = [];
  for (const run of data.runs) {
    const at = rows.get(run.runId);
    if (!at) continue;
    const start = runStart(run);
    const end = runEnd(run, now);
    let x = timeToX(start, domain, width);
    const x2 = timeToX(end, domain, width);
    let barWidth = Math.max(MIN_BAR_WIDTH, x2 - x);
    // Keep a minimum-width bar inside the plot.
    if (x + barWidth > width) x = Math.max(0, width - barWidth);
    barWidth = Math.min(barWidth, width - x);
    bars.push({
      run,
      lane: at.lane,
      row: at.row,
      x,
      width: barWidth,
      y: lanes[at.lane]!.y + LANE_PADDING + at.row * LANE_ROW_HEIGHT,
      cutStart: start < domain.start,
      open: run.finishedAt === null,
    });
  }
  const barOf = new Map(bars.map((b) => [b.run.runId, b]));
  const links: Link[] = [];
  const personRequests: PersonRequest[] = [];
  for (const h of data.handoffs) {
    const from = h.fromRunId ? barOf.get(h.fromRunId) : undefined;
    const to = h.toRunId ? barOf.get(h.toRunId) : undefined;
    if (to && h.fromMemberId === null) personRequests.push({ handoff: h, x: to.x, y: to.y });
    if (!from || !to) continue;
    const mid = LANE_ROW_HEIGHT / 2 - 2;
    // From the moment of the request on the sender's bar to the start of the recipient's bar.
    const fromX = Math.min(from.x + from.width, Math.max(from.x, timeToX(Date.parse(h.at), domain, width)));
    links.push({ handoff: h, from: { x: fromX, y: from.y + mid }, to: { x: to.x, y: to.y + mid } });
  }
  return { lanes, bars, links, personRequests, height: y, width, domain };
}

const TICK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400].map((s) => s * 1_000);

/** Axis ticks at round times (every 1 s … 1 day), at most `maxTicks` of them, inside the domain. */
export function timeTicks(domain: Domain, maxTicks: number): number[] {
  const span = domain.end - domain.start;
  if (span <= 0 || maxTicks < 1) return [];
  const step = TICK_STEPS.find((s) => span / s <= maxTicks) ?? Math.ceil(span / maxTicks / 86_400_000) * 86_400_000;
  // Round in local time for steps of an hour or more, so ticks land on 09:00, not 09:00 UTC shown as 10:00.
  const offset = step >= 3_600_000 ? new Date(domain.start).getTimezoneOffset() * 60_000 : 0;
  const first = Math.ceil((domain.start - offset) / step) * step + offset;
  const ticks: number[] = [];
  for (let t = first; t <= domain.end; t += step) ticks.push(t);
  return ticks;
}

/** "5 s", "2 min 5 s", "1 h 4 min", "350 ms". */
export function formatSpan(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

export const OUTCOME_LABEL: Record<RunOutcome | 'running' | 'pending', string> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'waiting for input',
  running: 'running',
  pending: 'queued',
};

/** The outcome a bar shows: the run's outcome, or running/queued while it has none. */
export const barState = (r: Pick<ApiTeamRun, 'outcome' | 'status'>): keyof typeof OUTCOME_LABEL =>
  r.outcome ?? (r.status === 'pending' ? 'pending' : 'running');

export const totalTokens = (t: TokenTotals) => t.inputTokens + t.outputTokens;

export function formatClock(t: number, withDate: boolean): string {
  const d = new Date(t);
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  return withDate ? `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${time}` : time;
}

/** A bar's accessible name: "Review, completed, 12:03:04–12:03:09, 5 s, 1,234 tokens". */
export function barLabel(run: ApiTeamRun, memberName: string, now: number): string {
  const start = runStart(run);
  const end = runEnd(run, now);
  const withDate = new Date(start).toDateString() !== new Date(now).toDateString();
  const until = run.finishedAt ? formatClock(end, withDate && new Date(end).toDateString() !== new Date(start).toDateString()) : 'now';
  const tokens = totalTokens(run.tokens);
  return [
    memberName,
    OUTCOME_LABEL[barState(run)],
    `${formatClock(start, withDate)}–${until}`,
    formatSpan(end - start),
    `${formatCount(tokens)} ${tokens === 1 ? 'token' : 'tokens'}`,
  ].join(', ');
}
