import type { TokenTotals, RunOutcome } from './run-events';

/** GET /api/v1/teams/:id/runs?from=ISO&to=ISO — the runs timeline's data. */
export type ApiTeamRun = {
  runId: string;
  memberId: string;
  /** The job this run executed (a request or a receipt), when it was a team job. */
  jobId: string | null;
  jobKind: 'request' | 'receipt' | null;
  status: 'pending' | 'running' | 'success' | 'error' | 'interrupted' | 'cancelled';
  /** null while running. */
  outcome: RunOutcome | null;
  stopReason: string | null;
  /** When the run was asked for; a pending run's bar starts here. */
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  tokens: TokenTotals;
  /** US dollars as a decimal string, priced when the run finished (ADR 048); null while it runs, or when unknown. */
  cost: string | null;
  fingerprint: string | null;
};

/** Costs over several runs: the known ones summed (US dollars, decimal string), finished runs of unknown cost counted apart. */
export type ApiCostTotals = { usd: string; unknownRuns: number };

/** A handoff: a request one member (or the person, fromMemberId null) sent to another, drawn between lanes. */
export type ApiTeamHandoff = {
  jobId: string;
  fromMemberId: string | null;
  toMemberId: string;
  /** When the request was made, and when its result went back (null while open). */
  at: string;
  /** The run in the sender's lane that sent it (null for the person). */
  fromRunId: string | null;
  /** The run that executed it in the recipient's lane (its first run). */
  toRunId: string | null;
};

export type ApiTeamRuns = {
  from: string;
  to: string;
  members: Array<{ id: string; name: string; tokens: TokenTotals; cost: ApiCostTotals }>;
  runs: ApiTeamRun[];
  handoffs: ApiTeamHandoff[];
  /** Over the runs returned (the window's, at most LIMITS.teamRuns.maxRuns). */
  totals: TokenTotals;
  cost: ApiCostTotals;
  /** True when the window held more runs than LIMITS.teamRuns.maxRuns: the newest are returned. */
  truncated: boolean;
};
