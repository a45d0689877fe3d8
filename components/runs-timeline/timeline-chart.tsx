'use client';

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ApiTeamRun, ApiTeamRuns } from '@/lib/types/team-runs';
import {
  LANE_ROW_HEIGHT,
  MIN_PLOT_WIDTH,
  OUTCOME_LABEL,
  barLabel,
  barState,
  fitDomain,
  formatClock,
  formatCount,
  formatSpan,
  layoutTimeline,
  runEnd,
  runStart,
  timeTicks,
  totalTokens,
} from './layout';
import { OUTCOME_STYLE } from './outcome-style';
import { useScrollCue } from './use-scroll-cue';
import { cappedText } from '@/lib/stop-reason-label';
import { CostText } from '@/components/ui/cost-text';

const AXIS_HEIGHT = 28;
const BAR_HEIGHT = LANE_ROW_HEIGHT - 6;
const LABEL_WIDTH = 'w-24 sm:w-36';

function useWidth(ref: React.RefObject<HTMLDivElement | null>) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    setWidth(el.clientWidth);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/**
 * Lanes (one per member) with a bar per run, handoffs as arrows between lanes, and a time axis. Bars are buttons:
 * focus or hover shows the run's details in the panel under the chart (never cut off at any width); the lanes
 * scroll sideways inside their own region when narrower than MIN_PLOT_WIDTH.
 */
export function TimelineChart({ data, now }: { data: ApiTeamRuns; now: number }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const available = useWidth(scrollRef);
  const width = Math.max(MIN_PLOT_WIDTH, available);
  const window = useMemo(() => ({ start: Date.parse(data.from), end: Date.parse(data.to) }), [data.from, data.to]);
  const domain = useMemo(() => fitDomain(data.runs, { start: window.start, end: Math.max(window.end, now) }, now), [data.runs, window, now]);
  const layout = useMemo(() => layoutTimeline(data, domain, width, now), [data, domain, width, now]);
  const ticks = useMemo(() => timeTicks(domain, Math.max(2, Math.floor(width / 110))), [domain, width]);
  const withDate = new Date(domain.start).toDateString() !== new Date(domain.end).toDateString();
  const cue = useScrollCue(scrollRef, [width, layout.height]);
  const names = useMemo(() => new Map(data.members.map((m) => [m.id, m.name])), [data.members]);
  const [active, setActive] = useState<string | null>(null);
  const activeRun = active ? data.runs.find((r) => r.runId === active) : undefined;
  const detailsId = useId();
  const markerId = useId();
  const height = layout.height + AXIS_HEIGHT;

  return (
    <div className="space-y-2">
      <div className="flex items-stretch rounded-md border border-zinc-200 dark:border-zinc-800">
        <ul aria-label="Lanes" className={`${LABEL_WIDTH} shrink-0 border-r border-zinc-200 dark:border-zinc-800`} style={{ height }}>
          {layout.lanes.map((lane) => (
            <li
              key={lane.memberId}
              className="flex flex-col justify-center overflow-hidden px-2 odd:bg-zinc-50 dark:odd:bg-zinc-900"
              style={{ height: lane.height }}
            >
              <span className="truncate text-sm font-medium text-zinc-900 dark:text-zinc-100" title={lane.name}>
                {lane.name}
              </span>
              <span className="truncate text-xs text-zinc-600 dark:text-zinc-400">{formatCount(totalTokens(lane.tokens))} tokens</span>
            </li>
          ))}
        </ul>
        <div className="relative min-w-0 flex-1">
          <div
            ref={scrollRef}
            role="region"
            aria-label={cue.any ? 'Runs by member over time (scrolls sideways)' : 'Runs by member over time'}
            tabIndex={cue.any ? 0 : undefined}
            className="overflow-x-auto overflow-y-hidden focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            <div className="relative" style={{ width, height }}>
              <svg aria-hidden className="absolute inset-0 text-zinc-300 dark:text-zinc-700" width={width} height={height}>
                {layout.lanes.map((lane) =>
                  lane.index % 2 === 0 ? <rect key={lane.memberId} x={0} y={lane.y} width={width} height={lane.height} className="fill-zinc-50 dark:fill-zinc-900" /> : null,
                )}
                {ticks.map((t) => {
                  const x = ((t - domain.start) / (domain.end - domain.start)) * width;
                  return <line key={t} x1={x} x2={x} y1={0} y2={layout.height} stroke="currentColor" strokeDasharray="2 4" />;
                })}
                <line x1={0} x2={width} y1={layout.height} y2={layout.height} stroke="currentColor" />
              </svg>
              {layout.bars.map((bar) => {
                const state = barState(bar.run);
                const look = OUTCOME_STYLE[state];
                const isActive = active === bar.run.runId;
                return (
                  <button
                    key={bar.run.runId}
                    type="button"
                    data-run-id={bar.run.runId}
                    data-outcome={state}
                    aria-label={barLabel(bar.run, names.get(bar.run.memberId) ?? 'Member', now)}
                    aria-describedby={isActive ? detailsId : undefined}
                    onFocus={() => setActive(bar.run.runId)}
                    onMouseEnter={() => setActive(bar.run.runId)}
                    onClick={() => setActive(bar.run.runId)}
                    className={`absolute flex items-center overflow-hidden rounded-sm px-1 text-[11px] leading-none font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${look.className} ${isActive ? 'ring-2 ring-zinc-900 ring-offset-1 dark:ring-zinc-100 dark:ring-offset-zinc-950' : ''} ${bar.cutStart ? 'rounded-l-none' : ''} ${bar.open ? 'rounded-r-none' : ''}`}
                    style={{ left: bar.x, top: bar.y + 3, width: bar.width, height: BAR_HEIGHT, ...look.style }}
                  >
                    {bar.width >= 14 ? <span aria-hidden>{look.glyph}</span> : null}
                  </button>
                );
              })}
              <svg aria-hidden className="pointer-events-none absolute inset-0 text-indigo-700 dark:text-indigo-300" width={width} height={height}>
                <defs>
                  <marker id={markerId} viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0,0 L8,4 L0,8 z" fill="currentColor" />
                  </marker>
                </defs>
                {layout.personRequests.map((mark) => (
                  <path key={mark.handoff.jobId} data-person-request={mark.handoff.jobId} d={`M${mark.x - 4},${mark.y - 3} L${mark.x + 4},${mark.y - 3} L${mark.x},${mark.y + 2} z`} fill="currentColor" />
                ))}
                {layout.links.map((link) => {
                  const { from, to } = link;
                  const bend = Math.max(12, Math.abs(to.x - from.x) / 2);
                  return (
                    <g key={link.handoff.jobId} data-handoff={link.handoff.jobId}>
                      <circle cx={from.x} cy={from.y} r={3} fill="currentColor" />
                      <path
                        d={`M${from.x},${from.y} C${from.x + bend},${from.y} ${to.x - bend},${to.y} ${to.x},${to.y}`}
                        fill="none"
                        stroke="currentColor"
                        strokeWidth={1.5}
                        markerEnd={`url(#${markerId})`}
                      />
                    </g>
                  );
                })}
              </svg>
              <div aria-hidden className="absolute left-0" style={{ top: layout.height, width, height: AXIS_HEIGHT }}>
                {ticks.map((t) => {
                  const x = ((t - domain.start) / (domain.end - domain.start)) * width;
                  return (
                    <span
                      key={t}
                      className="absolute top-1 -translate-x-1/2 text-[11px] whitespace-nowrap text-zinc-600 tabular-nums first:translate-x-0 dark:text-zinc-400"
                      style={{ left: Math.min(Math.max(x, 24), width - 24) }}
                    >
                      {formatClock(t, withDate).replace(/:00$/, '')}
                    </span>
                  );
                })}
              </div>
            </div>
          </div>
          {cue.right ? (
            <div aria-hidden className="pointer-events-none absolute inset-y-0 right-0 w-8 bg-gradient-to-l from-white to-transparent dark:from-zinc-950" />
          ) : null}
        </div>
      </div>
      {cue.any ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          <span aria-hidden>↔ </span>The lanes scroll sideways{cue.right ? ': more to the right' : ''}.
        </p>
      ) : null}
      <RunDetails id={detailsId} run={activeRun} name={activeRun ? (names.get(activeRun.memberId) ?? 'Member') : ''} now={now} />
      <Legend />
    </div>
  );
}

/** The details of the hovered or focused bar: what its accessible name says, spelled out. */
function RunDetails({ id, run, name, now }: { id: string; run: ApiTeamRun | undefined; name: string; now: number }) {
  if (!run) {
    return (
      <p id={id} className="rounded-md border border-dashed border-zinc-300 px-3 py-2 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
        Hover over or focus a bar (Tab) to see its run’s duration, tokens and cost.
      </p>
    );
  }
  const start = runStart(run);
  const end = runEnd(run, now);
  const state = barState(run);
  return (
    <div id={id} data-testid="run-details" className="rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">
      <p className="font-medium text-zinc-900 dark:text-zinc-100">
        <span aria-hidden>{OUTCOME_STYLE[state].glyph} </span>
        {name} · {OUTCOME_LABEL[state]}
        {run.stopReason ? ` (${cappedText(run.stopReason)})` : ''}
        {run.jobKind ? ` · ${run.jobKind === 'request' ? 'request' : 'receipt'}` : ' · direct chat'}
      </p>
      <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-zinc-700 dark:text-zinc-300">
        <dt>Time</dt>
        <dd className="tabular-nums">
          {formatClock(start, true)} – {run.finishedAt ? formatClock(end, true) : 'now'}
        </dd>
        <dt>Duration</dt>
        <dd className="tabular-nums">{formatSpan(end - start)}</dd>
        <dt>Tokens</dt>
        <dd className="tabular-nums">
          {formatCount(run.tokens.inputTokens)} in · {formatCount(run.tokens.outputTokens)} out · {formatCount(run.tokens.modelCalls)} model{' '}
          {run.tokens.modelCalls === 1 ? 'call' : 'calls'}
          {run.tokens.unreportedCalls ? ` (${formatCount(run.tokens.unreportedCalls)} reported no usage)` : ''}
        </dd>
        <dt>Cost</dt>
        <dd className="tabular-nums">
          <CostText usd={run.cost} pending={run.finishedAt === null} />
        </dd>
      </dl>
    </div>
  );
}

function Legend() {
  const states = ['completed', 'failed', 'cancelled', 'interrupted', 'running', 'pending'] as const;
  return (
    <ul aria-label="Legend" className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-700 dark:text-zinc-300">
      {states.map((s) => (
        <li key={s} className="flex items-center gap-1.5">
          <span aria-hidden className={`inline-flex h-4 w-6 items-center justify-center rounded-sm text-[10px] font-semibold ${OUTCOME_STYLE[s].className}`} style={OUTCOME_STYLE[s].style}>
            {OUTCOME_STYLE[s].glyph}
          </span>
          {OUTCOME_LABEL[s]}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="text-indigo-700 dark:text-indigo-300">●→</span>
        handoff (request to another member)
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="text-indigo-700 dark:text-indigo-300">▼</span>
        your request
      </li>
    </ul>
  );
}
