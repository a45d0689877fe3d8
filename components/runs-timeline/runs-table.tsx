'use client';

import { useRef, type ReactNode } from 'react';
import type { TokenTotals } from '@/lib/types/run-events';
import type { ApiTeamRuns } from '@/lib/types/team-runs';
import { OUTCOME_LABEL, barState, formatClock, formatCount, formatSpan, runEnd, runStart } from './layout';
import { jobTotals } from './job-totals';
import { OUTCOME_STYLE } from './outcome-style';
import { useScrollCue } from './use-scroll-cue';
import { cappedText } from '@/lib/stop-reason-label';
import { CostText } from '@/components/ui/cost-text';

const th = 'px-2 py-1.5 text-left font-medium whitespace-nowrap';
const num = 'px-2 py-1.5 text-right tabular-nums whitespace-nowrap';
const td = 'px-2 py-1.5 whitespace-nowrap';

/** A table that scrolls sideways inside its own labelled region, never the page, and shows when it does. */
/** Tokens in, tokens out and model calls: the same three cells in every table row. */
function TokenCells({ tokens }: { tokens: TokenTotals }) {
  return (
    <>
      <td className={num}>{formatCount(tokens.inputTokens)}</td>
      <td className={num}>{formatCount(tokens.outputTokens)}</td>
      <td className={num}>{formatCount(tokens.modelCalls)}</td>
    </>
  );
}

function Scroll({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const cue = useScrollCue(ref, [children]);
  return (
    <div>
      <div className="relative">
        <div
          ref={ref}
          role="region"
          aria-label={cue.any ? `${label} (scrolls sideways)` : label}
          tabIndex={0}
          className="overflow-x-auto rounded-md border border-zinc-200 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-zinc-800"
        >
          {children}
        </div>
        {cue.right ? (
          <div aria-hidden className="pointer-events-none absolute inset-y-px right-px w-8 rounded-r-md bg-gradient-to-l from-white to-transparent dark:from-zinc-950" />
        ) : null}
      </div>
      {cue.any ? (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          <span aria-hidden>↔ </span>Scroll sideways for more columns.
        </p>
      ) : null}
    </div>
  );
}

/** The timeline's data as tables: every run, token totals per job and per member with the team's, and the handoffs. */
export function RunsTable({ data, now }: { data: ApiTeamRuns; now: number }) {
  const names = new Map(data.members.map((m) => [m.id, m.name]));
  const runs = [...data.runs].sort((a, b) => runStart(a) - runStart(b));
  const runsOf = (id: string) => data.runs.filter((r) => r.memberId === id).length;
  const jobs = jobTotals(data);
  const clock = (t: number) => formatClock(t, new Date(t).toDateString() !== new Date(now).toDateString());

  return (
    <div className="space-y-6">
      <Scroll label="Runs table">
        <table className="w-full text-sm text-zinc-800 dark:text-zinc-200">
          <caption className="px-2 py-1.5 text-left font-medium text-zinc-900 dark:text-zinc-100">Runs ({formatCount(runs.length)})</caption>
          <thead className="bg-zinc-50 text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
            <tr>
              <th scope="col" className={th}>Member</th>
              <th scope="col" className={th}>Kind</th>
              <th scope="col" className={th}>Outcome</th>
              <th scope="col" className={th}>Started</th>
              <th scope="col" className={th}>Ended</th>
              <th scope="col" className={`${th} text-right`}>Duration</th>
              <th scope="col" className={`${th} text-right`}>Tokens in</th>
              <th scope="col" className={`${th} text-right`}>Tokens out</th>
              <th scope="col" className={`${th} text-right`}>Model calls</th>
              <th scope="col" className={`${th} text-right`}>Cost</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {runs.map((r) => {
              const state = barState(r);
              return (
                <tr key={r.runId} data-run-id={r.runId}>
                  <th scope="row" className={`${th} max-w-40 truncate`}>{names.get(r.memberId) ?? 'Member'}</th>
                  <td className={td}>{r.jobKind === 'request' ? 'Request' : r.jobKind === 'receipt' ? 'Receipt' : 'Direct chat'}</td>
                  <td className={td}>
                    <span aria-hidden>{OUTCOME_STYLE[state].glyph} </span>
                    {OUTCOME_LABEL[state]}
                    {r.stopReason ? ` (${cappedText(r.stopReason)})` : ''}
                  </td>
                  <td className={`${td} tabular-nums`}>{clock(runStart(r))}</td>
                  <td className={`${td} tabular-nums`}>{r.finishedAt ? clock(runEnd(r, now)) : 'still running'}</td>
                  <td className={num}>{formatSpan(runEnd(r, now) - runStart(r))}</td>
                  <TokenCells tokens={r.tokens} />
                  <td className={num}>
                    <CostText usd={r.cost} pending={r.finishedAt === null} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scroll>

      {jobs.length > 0 ? (
        <Scroll label="Tokens by job table">
          <table className="w-full text-sm text-zinc-800 dark:text-zinc-200">
            <caption className="px-2 py-1.5 text-left font-medium text-zinc-900 dark:text-zinc-100">Tokens by job ({formatCount(jobs.length)})</caption>
            <thead className="bg-zinc-50 text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
              <tr>
                <th scope="col" className={th}>Member</th>
                <th scope="col" className={th}>Job</th>
                <th scope="col" className={th}>Started</th>
                <th scope="col" className={`${th} text-right`}>Runs</th>
                <th scope="col" className={`${th} text-right`}>Tokens in</th>
                <th scope="col" className={`${th} text-right`}>Tokens out</th>
                <th scope="col" className={`${th} text-right`}>Model calls</th>
                <th scope="col" className={`${th} text-right`}>Cost</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {jobs.map((j) => (
                <tr key={j.jobId} data-job-id={j.jobId}>
                  <th scope="row" className={`${th} max-w-40 truncate`}>{names.get(j.memberId) ?? 'Member'}</th>
                  <td className={td}>{j.jobKind === 'request' ? 'Request' : 'Receipt'}</td>
                  <td className={`${td} tabular-nums`}>{clock(j.start)}</td>
                  <td className={num}>{formatCount(j.runs)}</td>
                  <TokenCells tokens={j.tokens} />
                  <td className={num}>
                    <CostText usd={j.cost.usd} unknownRuns={j.cost.unknownRuns} pending={j.unfinished === j.runs} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}

      <Scroll label="Token totals table">
        <table className="w-full text-sm text-zinc-800 dark:text-zinc-200">
          <caption className="px-2 py-1.5 text-left font-medium text-zinc-900 dark:text-zinc-100">Token totals</caption>
          <thead className="bg-zinc-50 text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
            <tr>
              <th scope="col" className={th}>Member</th>
              <th scope="col" className={`${th} text-right`}>Runs</th>
              <th scope="col" className={`${th} text-right`}>Tokens in</th>
              <th scope="col" className={`${th} text-right`}>Tokens out</th>
              <th scope="col" className={`${th} text-right`}>Model calls</th>
              <th scope="col" className={`${th} text-right`}>Cost</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {data.members.map((m) => (
              <tr key={m.id}>
                <th scope="row" className={`${th} max-w-40 truncate`}>{m.name}</th>
                <td className={num}>{formatCount(runsOf(m.id))}</td>
                <TokenCells tokens={m.tokens} />
                <td className={num}>
                  <CostText usd={m.cost.usd} unknownRuns={m.cost.unknownRuns} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-zinc-200 font-semibold dark:border-zinc-700">
            <tr>
              <th scope="row" className={th}>Team total</th>
              <td className={num}>{formatCount(data.runs.length)}</td>
              <TokenCells tokens={data.totals} />
              <td className={num}>
                <CostText usd={data.cost.usd} unknownRuns={data.cost.unknownRuns} />
              </td>
            </tr>
          </tfoot>
        </table>
      </Scroll>

      <Scroll label="Handoffs table">
        <table className="w-full text-sm text-zinc-800 dark:text-zinc-200">
          <caption className="px-2 py-1.5 text-left font-medium text-zinc-900 dark:text-zinc-100">Handoffs ({formatCount(data.handoffs.length)})</caption>
          <thead className="bg-zinc-50 text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
            <tr>
              <th scope="col" className={th}>From</th>
              <th scope="col" className={th}>To</th>
              <th scope="col" className={th}>Requested</th>
              <th scope="col" className={th}>Recipient’s run</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {data.handoffs.map((h) => (
              <tr key={h.jobId}>
                <th scope="row" className={`${th} max-w-40 truncate`}>{h.fromMemberId ? (names.get(h.fromMemberId) ?? 'Member') : 'You'}</th>
                <td className={`${td} max-w-40 truncate`}>{names.get(h.toMemberId) ?? 'Member'}</td>
                <td className={`${td} tabular-nums`}>{clock(Date.parse(h.at))}</td>
                <td className={td}>{h.toRunId ? 'started' : 'not started yet'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </div>
  );
}
