import 'server-only';
import { LIMITS } from '@/lib/limits';
import { runOutcome } from '@/lib/run-outcome';
import { nanosToUsd } from '@/lib/money';
import type { TokenTotals } from '@/lib/types/run-events';
import type { ApiCostTotals, ApiTeamHandoff, ApiTeamRun, ApiTeamRuns } from '@/lib/types/team-runs';
import { runTokenTotals } from '@/server/agents/observe/run-lifecycle';
import { databaseEngine, readTx } from '@/server/db';
import { inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { validationError } from '@/server/http/errors';
import { requireTeam, teamMembers } from './teams';

const DAY_MS = 86_400_000;
const { maxWindowDays, maxRuns } = LIMITS.teamRuns;
/**
 * A finished run is looked for among runs created up to this long before `from`: the longest an agent may run.
 * Bounds the walk back through a conversation's history (runs have no index on finished_at); a run that lasted
 * longer (only across a crash recovery) and ended inside the window is left out.
 */
const LOOKBACK_MS = LIMITS.run.timeLimitMinutes.max * 60_000;

export type RunsWindow = { from: Date; to: Date };

/**
 * The window of GET /teams/:id/runs from its query: `from`/`to` ISO 8601 instants, default the last 24 h ending now.
 * 422 naming the field for a date that doesn't parse, from ≥ to, or a window longer than maxWindowDays.
 */
export function parseRunsWindow(query: Record<string, string>, now = new Date()): RunsWindow {
  const unknown = Object.keys(query).find((k) => k !== 'from' && k !== 'to');
  if (unknown) throw validationError({ [unknown]: 'Unknown field' });
  const to = query.to === undefined ? now : parseInstant(query.to, 'to');
  const from = query.from === undefined ? new Date(to.getTime() - DAY_MS) : parseInstant(query.from, 'from');
  if (from.getTime() >= to.getTime()) throw validationError({ from: 'Must be before to' });
  if (to.getTime() - from.getTime() > maxWindowDays * DAY_MS) throw validationError({ to: `The window may cover at most ${maxWindowDays} days` });
  return { from, to };
}

// A date with a time and an explicit zone ("2026-05-01T12:00:00Z", "…+02:00"): never a locale-dependent guess.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseInstant(value: string, field: 'from' | 'to'): Date {
  const at = ISO_INSTANT.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) throw validationError({ [field]: 'Must be an ISO 8601 date and time with a zone' });
  return at;
}

type RunRow = {
  id: string;
  conversation_id: string;
  idempotency_key: string;
  status: ApiTeamRun['status'];
  stop_reason: string | null;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
  unreported_calls: number;
  cost_nanos: number | string | null;
  fingerprint: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
};

type JobRow = {
  id: string;
  kind: 'request' | 'receipt';
  member_id: string | null;
  conversation_id: string;
  source_member_id: string | null;
  created_at: number;
};

const RUN_COLUMNS = `id, conversation_id, idempotency_key, status, stop_reason, input_tokens, output_tokens, model_calls,
  unreported_calls, cost_nanos, fingerprint, created_at, started_at, finished_at`;
const JOB_COLUMNS = 'id, kind, member_id, conversation_id, source_member_id, created_at';
/** Jobs read per step of the walk back through a team's jobs (handoffs), newest first. */
const WALK_PAGE = 200;

// Per conversation, through runs_conversation_created_idx: created in [from − lookback, to), newest first.
const recentRuns = statement(
  `SELECT ${RUN_COLUMNS} FROM runs WHERE conversation_id = ? AND created_at >= ? AND created_at < ? AND kind != 'note'
   ORDER BY created_at DESC LIMIT ?`,
);
// Its active runs through runs_conversation_status_idx (however long ago they were created). SQLite: INDEXED BY,
// since without statistics it prefers the created_at index here, which walks the whole history.
const activeRuns = statement(
  `SELECT ${RUN_COLUMNS} FROM runs${databaseEngine() === 'sqlite' ? ' INDEXED BY runs_conversation_status_idx' : ''}
   WHERE conversation_id = ? AND status IN ('pending', 'running') AND created_at < ? AND kind != 'note'`,
);
// jobs.id is unique (its own index); the ids are bound as one list parameter.
const jobsById = statement(`SELECT ${JOB_COLUMNS} FROM jobs WHERE ${inList('id')} AND team_id = ?`);
// The team's jobs newest first through jobs_team_seq_idx, one page at a time (below the seq of the last one read).
const jobsNewestFirst = statement(`SELECT ${JOB_COLUMNS}, seq FROM jobs WHERE team_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
const firstRunOf = statement(`SELECT id FROM runs WHERE conversation_id = ? AND idempotency_key = ?`);
const runExecutingAt = statement(
  `SELECT id, finished_at FROM runs WHERE conversation_id = ? AND created_at <= ? AND kind != 'note' ORDER BY created_at DESC LIMIT 1`,
);
const ACTIVE = new Set(['pending', 'running']);

const zero = (): TokenTotals => ({ inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 });
const add = (into: TokenTotals, t: TokenTotals) => {
  into.inputTokens += t.inputTokens;
  into.outputTokens += t.outputTokens;
  into.modelCalls += t.modelCalls;
  into.unreportedCalls += t.unreportedCalls;
};

/** Costs summed exactly in nano-dollars; a finished run of unknown cost is counted apart, never as $0 (ADR 048). */
type CostSum = { nanos: number; unknownRuns: number };
const addCost = (into: CostSum, run: RunRow) => {
  if (ACTIVE.has(run.status)) return;
  if (run.cost_nanos === null) into.unknownRuns += 1;
  else into.nanos += Number(run.cost_nanos);
};
const costView = (sum: CostSum): ApiCostTotals => ({ usd: nanosToUsd(sum.nanos), unknownRuns: sum.unknownRuns });

/** A team job's run keys are `job:<jobId>:start` and `job:<jobId>:answer:<key>` (server/teams/execution.ts). */
export function jobIdOfRunKey(key: string): string | null {
  const match = /^job:([^:]+):/.exec(key);
  return match ? match[1]! : null;
}

const startOf = (r: RunRow) => r.started_at ?? r.created_at;

/**
 * The team's runs timeline for a window: every run of a member conversation that overlaps [from, to) — started
 * before `to` and not finished before `from`, running ones included — with its member, the team job it executed
 * (null for a person's direct chat or a run that was no job), outcome and tokens; the handoffs between members
 * touching the window; and token totals per member and for the team over the runs returned. At most
 * LIMITS.teamRuns.maxRuns runs, the newest kept (`truncated`).
 *
 * Tokens: a finished run's are its recorded totals; a running run's are summed from its model.call events so far.
 * Read in one snapshot.
 */
export async function teamRuns(ownerId: string, teamId: string, window: RunsWindow): Promise<ApiTeamRuns> {
  return readTx(() => readTeamRuns(ownerId, teamId, window));
}

async function readTeamRuns(ownerId: string, teamId: string, window: RunsWindow): Promise<ApiTeamRuns> {
  await requireTeam(ownerId, teamId);
  const members = await teamMembers(teamId);
  const memberOfConversation = new Map(members.filter((m) => m.conversationId).map((m) => [m.conversationId!, m.id]));
  const from = window.from.getTime();
  const to = window.to.getTime();

  // Per conversation: its runs created in [from − lookback, to), newest first, plus its active runs.
  const byId = new Map<string, RunRow>();
  for (const conversationId of memberOfConversation.keys()) {
    const rows = [
      // Times are bound as Dates (timestamps on Postgres, epoch ms on SQLite); rows answer epoch ms on both.
      ...(await recentRuns.all<RunRow>(conversationId, new Date(from - LOOKBACK_MS), window.to, maxRuns + 1)),
      ...(await activeRuns.all<RunRow>(conversationId, window.to)),
    ];
    for (const r of rows) {
      if (startOf(r) >= to) continue;
      if (r.finished_at !== null && r.finished_at < from) continue;
      byId.set(r.id, r);
    }
  }
  const all = [...byId.values()].sort((a, b) => startOf(b) - startOf(a) || b.created_at - a.created_at);
  const truncated = all.length > maxRuns;
  const kept = all.slice(0, maxRuns).reverse();

  const jobs = await loadJobs(teamId, kept.map((r) => jobIdOfRunKey(r.idempotency_key)).filter((id): id is string => !!id));
  const runs: ApiTeamRun[] = await Promise.all(kept.map(async (r) => {
    const job = jobs.get(jobIdOfRunKey(r.idempotency_key) ?? '');
    const tokens = ACTIVE.has(r.status)
      ? r.status === 'running'
        ? await runTokenTotals(r.id)
        : zero()
      : { inputTokens: r.input_tokens, outputTokens: r.output_tokens, modelCalls: r.model_calls, unreportedCalls: r.unreported_calls };
    return {
      runId: r.id,
      memberId: memberOfConversation.get(r.conversation_id)!,
      jobId: job?.id ?? null,
      jobKind: job?.kind ?? null,
      status: r.status,
      outcome: runOutcome(r.status),
      stopReason: r.stop_reason,
      createdAt: new Date(r.created_at).toISOString(),
      startedAt: r.started_at === null ? null : new Date(r.started_at).toISOString(),
      finishedAt: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
      tokens,
      // Priced when it finished (ADR 048): null while it runs, or when unknown.
      cost: ACTIVE.has(r.status) || r.cost_nanos === null ? null : nanosToUsd(Number(r.cost_nanos)),
      fingerprint: r.fingerprint,
    };
  }));

  const memberTokens = new Map(members.map((m) => [m.id, zero()]));
  const totals = zero();
  for (const run of runs) {
    add(memberTokens.get(run.memberId)!, run.tokens);
    add(totals, run.tokens);
  }
  const memberCost = new Map<string, CostSum>(members.map((m) => [m.id, { nanos: 0, unknownRuns: 0 }]));
  const cost: CostSum = { nanos: 0, unknownRuns: 0 };
  for (const r of kept) {
    addCost(memberCost.get(memberOfConversation.get(r.conversation_id)!)!, r);
    addCost(cost, r);
  }

  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    members: members.map((m) => ({ id: m.id, name: m.name, tokens: memberTokens.get(m.id)!, cost: costView(memberCost.get(m.id)!) })),
    runs,
    handoffs: await handoffs(teamId, window, [...jobs.values()], members, memberOfConversation),
    totals,
    cost: costView(cost),
    truncated,
  };
}

async function loadJobs(teamId: string, ids: string[]): Promise<Map<string, JobRow>> {
  const out = new Map<string, JobRow>();
  const unique = [...new Set(ids)];
  if (!unique.length) return out;
  for (const row of await jobsById.all<JobRow>(unique, teamId)) out.set(row.id, row);
  return out;
}

/**
 * Requests between lanes that touch the window: those made inside it (walking the team's jobs newest first through
 * jobs_team_seq_idx and stopping at the first one made before `from`), and those whose run is in it. The sender's
 * run is the one executing in the sender's conversation when the request was made; the recipient's is its first.
 */
async function handoffs(
  teamId: string,
  window: RunsWindow,
  runJobs: JobRow[],
  members: Array<{ id: string; conversationId: string | null }>,
  memberOfConversation: Map<string, string>,
): Promise<ApiTeamHandoff[]> {
  const from = window.from.getTime();
  const to = window.to.getTime();
  const requests = new Map(runJobs.filter((j) => j.kind === 'request').map((j) => [j.id, j]));
  let below = Number.MAX_SAFE_INTEGER;
  walk: for (;;) {
    const page = await jobsNewestFirst.all<JobRow & { seq: number }>(teamId, below, WALK_PAGE);
    for (const job of page) {
      if (job.created_at < from) break walk;
      if (requests.size >= maxRuns) break walk;
      if (job.kind === 'request' && job.created_at < to) requests.set(job.id, job);
    }
    if (page.length < WALK_PAGE) break;
    below = page[page.length - 1]!.seq;
  }

  const conversationOf = new Map(members.map((m) => [m.id, m.conversationId]));
  const out: ApiTeamHandoff[] = [];
  for (const job of requests.values()) {
    const toMemberId = job.member_id ?? memberOfConversation.get(job.conversation_id);
    if (!toMemberId) continue;
    const fromMemberId = job.source_member_id && conversationOf.has(job.source_member_id) ? job.source_member_id : null;
    const senderConversation = fromMemberId ? conversationOf.get(fromMemberId) : null;
    const sender = senderConversation ? await runExecutingAt.get<{ id: string; finished_at: number | null }>(senderConversation, new Date(job.created_at)) : undefined;
    const recipient = await firstRunOf.get<{ id: string }>(job.conversation_id, `job:${job.id}:start`);
    out.push({
      jobId: job.id,
      fromMemberId,
      toMemberId,
      at: new Date(job.created_at).toISOString(),
      fromRunId: sender && (sender.finished_at === null || sender.finished_at >= job.created_at) ? sender.id : null,
      toRunId: recipient?.id ?? null,
    });
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
