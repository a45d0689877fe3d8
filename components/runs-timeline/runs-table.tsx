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

/** The columns of figures: right-aligned, so their digits line up. */
const FIGURES = new Set(['Duration', 'Runs', 'Tokens in', 'Tokens out', 'Model calls', 'Cost']);
/** What every token table ends with: TokenCells, then the cost. */
const TOKEN_COLUMNS = ['Tokens in', 'Tokens out', 'Model calls', 'Cost'];

/** One captioned table in its scrolling region: the header row from `columns`, the rows, an optional total row. */
function DataTable({ label, caption, columns, children, total }: { label: string; caption: string; columns: string[]; children: ReactNode; total?: ReactNode }) {
  return (
    <Scroll label={label}>
      <table className="w-full text-sm text-zinc-800 dark:text-zinc-200">
        <caption className="px-2 py-1.5 text-left font-medium text-zinc-900 dark:text-zinc-100">{caption}</caption>
        <thead className="bg-zinc-50 text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={FIGURES.has(column) ? `${th} text-right` : th}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">{children}</tbody>
        {total ? <tfoot className="border-t-2 border-zinc-200 font-semibold dark:border-zinc-700">{total}</tfoot> : null}
      </table>
    </Scroll>
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
      <DataTable
        label="Runs table"
        caption={`Runs (${formatCount(runs.length)})`}
        columns={['Member', 'Kind', 'Outcome', 'Started', 'Ended', 'Duration', ...TOKEN_COLUMNS]}
      >
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
      </DataTable>

      {jobs.length > 0 ? (
        <DataTable label="Tokens by job table" caption={`Tokens by job (${formatCount(jobs.length)})`} columns={['Member', 'Job', 'Started', 'Runs', ...TOKEN_COLUMNS]}>
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
        </DataTable>
      ) : null}

      <DataTable
        label="Token totals table"
        caption="Token totals"
        columns={['Member', 'Runs', ...TOKEN_COLUMNS]}
        total={
          <tr>
            <th scope="row" className={th}>Team total</th>
            <td className={num}>{formatCount(data.runs.length)}</td>
            <TokenCells tokens={data.totals} />
            <td className={num}>
              <CostText usd={data.cost.usd} unknownRuns={data.cost.unknownRuns} />
            </td>
          </tr>
        }
      >
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
      </DataTable>

      <DataTable label="Handoffs table" caption={`Handoffs (${formatCount(data.handoffs.length)})`} columns={['From', 'To', 'Requested', 'Recipient’s run']}>
        {data.handoffs.map((h) => (
          <tr key={h.jobId}>
            <th scope="row" className={`${th} max-w-40 truncate`}>{h.fromMemberId ? (names.get(h.fromMemberId) ?? 'Member') : 'You'}</th>
            <td className={`${td} max-w-40 truncate`}>{names.get(h.toMemberId) ?? 'Member'}</td>
            <td className={`${td} tabular-nums`}>{clock(Date.parse(h.at))}</td>
            <td className={td}>{h.toRunId ? 'started' : 'not started yet'}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
