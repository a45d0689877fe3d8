import 'server-only';
import { readTx } from '@/server/db';
import { UNFINISHED_JOB_PREDICATE } from '@/server/db/schema';
import { indexedBy, jsonNumber } from '@/server/db/dialect';
import { statement, type Statement } from '@/server/db/statement';
import { ownersAtDailyCap, type CapOptions } from '@/server/budgets/daily-cap';
import { teamsAtBudget } from '@/server/budgets/team-budget';
import type { OwnerQueue } from './types';

/**
 * One admissible unit. `kind` absent or 'job': a team job (jobId, teamId are the job's). 'child': a queued delegated
 * child (delegationId); 'parent': a run whose children have all finished, taking its lent slot back (runId). For those
 * two, jobId and conversationId are synthetic keys ('d:…', 'w:…') that never collide with a job or a busy
 * conversation, and teamId names the worker their steps run on (one per parent run).
 */
export type SchedulingCandidate = {
  jobId: string;
  conversationId: string;
  teamId: string;
  status: string;
  kind?: 'job' | 'child' | 'parent' | 'item';
  delegationId?: string;
  /** An item of a durable batch (ADR 059): jobId and conversationId are 'b:<item id>', teamId its batch's worker. */
  itemId?: string;
  runId?: string;
  /** A child: the process executing its parent run, whose worker launches it (runs.process_id). */
  parentProcessId?: string | null;
};

/** A delegation row holding (or about to hold) a slot, for reconciliation. */
export type RunningDelegation = {
  delegationId: string;
  worker: string;
  childRunId: string | null;
  childRunStatus: string | null;
  /** The parent run has finished: the child must be stopped (cancel cascade). */
  orphaned: boolean;
  /** The process executing (or that executed) the parent run: its steps belong there (runs.process_id). */
  parentProcessId: string | null;
};

/** A batch item holding a slot, for reconciliation: its run finished unrecorded, or its lease expired before a run. */
export type RunningBatchItem = {
  itemId: string;
  worker: string;
  lease: number;
  runId: string | null;
  runStatus: string | null;
  /** Epoch ms; null once a run is recorded (the run's own recovery carries it from then on). */
  leaseExpiresAt: number | null;
};

export type SchedulingView = {
  queues: OwnerQueue<SchedulingCandidate>[];
  /** Admitted, unfinished jobs holding a slot (waiting_input excluded). */
  activeCount: number;
  /** The same slots per owner, for the shared cap. */
  heldSlots: Map<string, number>;
  /** Conversations running something outside the job system (a person chatting directly). */
  busyConversations: Set<string>;
  /** Running jobs, for reconciliation: their run may have finished or never started. */
  running: Array<{ jobId: string; teamId: string; status: string; runId: string | null; runStatus: string | null }>;
  /** Admitted delegated children (and queued ones whose parent has finished), for reconciliation. */
  delegations: RunningDelegation[];
  /** Admitted batch items, for reconciliation. */
  batchItems: RunningBatchItem[];
  /** Ended batches whose calling run has not yet had its end message. */
  unnotifiedBatches: number;
  /**
   * The rows read, in seq order: each conversation's head and every admitted job; with `everyUnfinished`, every
   * unfinished job, for explaining why queued work waits (why-waiting.ts).
   */
  unfinished: SchedulingRow[];
  /** Teams whose token budget holds their queued heads, and accounts at the daily cap (ADR 023). */
  heldTeams: ReadonlySet<string>;
  heldOwners: ReadonlySet<string>;
};

export type SchedulingRow = {
  id: string;
  teamId: string;
  ownerId: string;
  conversationId: string;
  status: string;
  runId: string | null;
  runStatus: string | null;
  teamStatus: string;
  /** The job's run lends its slot while it waits on delegated children. */
  runWait: string | null;
};

type DelegationRow = {
  id: string;
  ownerId: string;
  parentRunId: string;
  status: string;
  concurrency: number | null;
  parentStatus: string | null;
  parentProcessId: string | null;
  childRunId: string | null;
  childStatus: string | null;
  childWait: string | null;
};

// A planning pass runs after every freed slot: its statements are compiled once per connection. The index hints
// are SQLite's (its planner otherwise may pick a worse index; a hint it cannot honour is an error, not a slow
// plan); Postgres plans without them. Both read unfinished jobs through partial indexes, never a team's history.
const unfinishedFrom = (filter: string) =>
  statement(
    `select j.id, j.team_id as "teamId", j.owner_id as "ownerId", j.conversation_id as "conversationId", j.status, j.run_id as "runId",
            r.status as "runStatus", t.status as "teamStatus", r.delegation_wait as "runWait"
           from teams t ${indexedBy('teams_pending_idx')}
           join jobs j ${indexedBy('jobs_unfinished_team_idx')} on j.team_id = t.id
           left join runs r on r.id = j.run_id
          where t.has_pending = 1
            and j.${UNFINISHED_JOB_PREDICATE}${filter}
          order by j.seq`,
  );
/**
 * What a pass needs: each conversation's head (its first unfinished job) and every job past queued (they hold
 * slots or wait for a person; a conversation runs one at a time, so they are heads too). A job queued behind
 * another in its conversation can't be admitted, and a long queue of them would be read and dropped at every pass.
 */
const passRows = unfinishedFrom(`
            and (j.status != 'queued' or not exists (
                  select 1 from jobs e ${indexedBy('jobs_unfinished_conversation_idx')}
                   where e.conversation_id = j.conversation_id and e.${UNFINISHED_JOB_PREDICATE} and e.seq < j.seq))`);
/** Every unfinished job, for explaining why each queued one waits (why-waiting.ts). */
const everyUnfinishedRow = unfinishedFrom('');
const directConversations = statement(`select distinct conversation_id as c from runs where status in ('pending','running')`);
const openDelegations = statement(
  `select d.id, d.owner_id as "ownerId", d.parent_run_id as "parentRunId", d.status,
              ${jsonNumber('d.spec', 'limits', 'concurrency')} as concurrency,
              p.status as "parentStatus", p.process_id as "parentProcessId", d.child_run_id as "childRunId", c.status as "childStatus", c.delegation_wait as "childWait"
         from delegations d ${indexedBy('delegations_status_idx')}
         left join runs p on p.id = d.parent_run_id
         left join runs c on c.id = d.child_run_id
        where d.status in ('queued','running')
        order by d.seq`,
);
const readyParents = statement(
  `select id, owner_id as "ownerId" from runs ${indexedBy('runs_status_idx')}
        where status in ('pending','running') and delegation_wait = 'ready' order by created_at`,
);

// Batches (ADR 059): running items hold slots; each running batch offers at most concurrency − running queued items,
// read through (batch_id, status, idx), so a batch of thousands of queued items costs a pass a few rows. One read per
// running batch, not one statement for all: that statement (each batch's range bounded by a correlated subquery) was
// tried, and on Postgres a plan cached while batch_items was small scanned every queued item per row (50 ms a pass at
// 10,000 queued, seconds in the worst case; docs/performance.md, Durable batches).
const runningBatchItems = statement(
  `select i.id, i.batch_id as "batchId", i.owner_id as "ownerId", i.lease, i.run_id as "runId", i.lease_expires_at as "leaseExpiresAt", r.status as "runStatus"
         from batch_items i
         left join runs r on r.id = i.run_id
        where i.status = 'running'`,
);
const runningBatches = statement(`select id, owner_id as "ownerId", concurrency from batches where status = 'running' order by seq`);
const queuedItemsOf = statement(`select id from batch_items where batch_id = ? and status = 'queued' order by idx limit ?`);
const unnotifiedEnds = statement(
  `select count(*) as n from batches where status in ('completed','cancelled') and notify = 'message' and notified_at is null`,
);

type BatchItemRow = { id: string; batchId: string; ownerId: string; lease: number; runId: string | null; leaseExpiresAt: unknown; runStatus: string | null };

/** Every row of a statement that takes no parameters. */
// eslint-disable-next-line no-restricted-syntax -- statement().all(), not drizzle's SQLite-only .all(): the rule can't tell them apart.
const allRows = <T>(query: Statement) => query.all<T>();

/** The step worker of a batch's items (their steps run one at a time, like a team's). */
export const batchWorker = (batchId: string) => `batch:${batchId}`;

/** The step worker of a parent run's children (their steps run one at a time, like a team's). */
export const delegationWorker = (parentRunId: string) => `run:${parentRunId}`;

/**
 * Everything one planning pass needs, from one indexed query over teams with unfinished jobs (finished
 * history is never read). Conversation head rule: only the first unfinished job of each conversation can
 * be admitted, and a conversation whose head is running or waiting for input admits nothing. The jobs, runs and
 * delegations are read in one snapshot (readTx), so slots are counted from one state of the database; the budgets
 * are read after it (a threshold that only tightens as runs finish, memoized: server/budgets/usage-cache.ts).
 */
export async function loadSchedulingView(budgetOptions: CapOptions = {}, { everyUnfinished = false } = {}): Promise<SchedulingView> {
  const snapshot = await readTx(async () => ({
    rows: await allRows<SchedulingRow>(everyUnfinished ? everyUnfinishedRow : passRows),
    direct: await allRows<{ c: string }>(directConversations),
    delegationRows: await allRows<DelegationRow>(openDelegations),
    ready: await allRows<{ id: string; ownerId: string }>(readyParents),
    ...(await readBatches()),
  }));
  const { rows, direct } = snapshot;
  const heads = new Map<string, SchedulingRow>();
  for (const row of rows) if (!heads.has(row.conversationId)) heads.set(row.conversationId, row);
  const busy = new Set<string>();
  for (const { c } of direct) busy.add(c);

  // Budgets (ADR 023): a team whose token budget is used up, or an account at the operator's daily cap, admits no
  // new job; its queued jobs wait until the budget is raised or the UTC day turns. Running work finishes, and a
  // job resuming with a person's answer is running work. Only teams with a queued head are looked at.
  const queuedHeads = [...heads.values()].filter((h) => h.status === 'queued' && h.teamStatus === 'ready');
  const heldTeams = await teamsAtBudget([...new Set(queuedHeads.map((h) => h.teamId))]);
  const heldOwners = await ownersAtDailyCap(new Set([...queuedHeads.map((h) => h.ownerId), ...snapshot.offeredItems.map((i) => i.ownerId)]), budgetOptions);

  const byOwner = new Map<string, SchedulingCandidate[]>();
  for (const head of heads.values()) {
    if (head.status !== 'queued' && head.status !== 'resuming') continue;
    // A disconnected (or half-created) team admits nothing until it is reconnected.
    if (head.teamStatus !== 'ready') continue;
    if (head.status === 'queued' && (heldTeams.has(head.teamId) || heldOwners.has(head.ownerId))) continue;
    const list = byOwner.get(head.ownerId) ?? [];
    list.push({ jobId: head.id, conversationId: head.conversationId, teamId: head.teamId, status: head.status });
    byOwner.set(head.ownerId, list);
  }
  const heldSlots = new Map<string, number>();
  let activeCount = 0;
  const hold = (ownerId: string) => {
    heldSlots.set(ownerId, (heldSlots.get(ownerId) ?? 0) + 1);
    activeCount += 1;
  };
  // A job whose run waits on its delegated children lends its slot (no deadlock when parents fill every slot).
  for (const row of rows) if ((row.status === 'running' || row.status === 'cancelling') && !row.runWait) hold(row.ownerId);
  const delegations = loadDelegations(snapshot.delegationRows, snapshot.ready, byOwner, hold);
  // A batch's items come after the owner's other work: a batch of thousands never holds back the owner's team jobs.
  for (const row of snapshot.itemRows) hold(row.ownerId);
  for (const item of snapshot.offeredItems) {
    if (heldOwners.has(item.ownerId)) continue;
    const list = byOwner.get(item.ownerId) ?? [];
    list.push({ kind: 'item', jobId: `b:${item.id}`, conversationId: `b:${item.id}`, teamId: batchWorker(item.batchId), status: 'queued', itemId: item.id });
    byOwner.set(item.ownerId, list);
  }
  return {
    queues: [...byOwner].map(([ownerId, candidates]) => ({ ownerId, candidates })),
    activeCount,
    heldSlots,
    busyConversations: busy,
    running: rows
      .filter((r) => r.status === 'running' || r.status === 'cancelling')
      .map((r) => ({ jobId: r.id, teamId: r.teamId, status: r.status, runId: r.runId, runStatus: r.runStatus })),
    delegations,
    batchItems: snapshot.itemRows.map((row) => ({
      itemId: row.id,
      worker: batchWorker(row.batchId),
      lease: Number(row.lease),
      runId: row.runId,
      runStatus: row.runStatus,
      leaseExpiresAt: row.leaseExpiresAt == null ? null : new Date(row.leaseExpiresAt as string | number | Date).getTime(),
    })),
    unnotifiedBatches: snapshot.unnotified,
    unfinished: rows,
    heldTeams,
    heldOwners,
  };
}

/** Inside the pass's snapshot: running items, and the queued items each running batch may admit now. */
async function readBatches() {
  const itemRows = await allRows<BatchItemRow>(runningBatchItems);
  const runningPer = new Map<string, number>();
  for (const row of itemRows) runningPer.set(row.batchId, (runningPer.get(row.batchId) ?? 0) + 1);
  const offeredItems: Array<{ id: string; batchId: string; ownerId: string }> = [];
  for (const batch of await allRows<{ id: string; ownerId: string; concurrency: number }>(runningBatches)) {
    const room = Number(batch.concurrency) - (runningPer.get(batch.id) ?? 0);
    if (room <= 0) continue;
    for (const { id } of await queuedItemsOf.all<{ id: string }>(batch.id, room)) offeredItems.push({ id, batchId: batch.id, ownerId: batch.ownerId });
  }
  const [unnotified] = await allRows<{ n: number | string }>(unnotifiedEnds);
  return { itemRows, offeredItems, unnotified: Number(unnotified?.n ?? 0) };
}

const ACTIVE_RUN = new Set(['pending', 'running']);

/**
 * Delegation's part of a pass, from the unfinished ledger rows (status index) and the active runs (status index):
 * running children hold a slot unless their own run waits on children; queued children are candidates, at most
 * concurrency − running per parent, while their parent is active; parents whose children all finished ('ready') are
 * candidates to take their slot back. Each owner's order: ready parents (oldest work), then children, then jobs.
 */
function loadDelegations(
  rows: readonly DelegationRow[],
  ready: readonly { id: string; ownerId: string }[],
  byOwner: Map<string, SchedulingCandidate[]>,
  hold: (ownerId: string) => void,
): RunningDelegation[] {
  const reconcile: RunningDelegation[] = [];
  const runningPerParent = new Map<string, number>();
  for (const row of rows) {
    const orphaned = !row.parentStatus || !ACTIVE_RUN.has(row.parentStatus);
    if (row.status === 'running') {
      runningPerParent.set(row.parentRunId, (runningPerParent.get(row.parentRunId) ?? 0) + 1);
      if (!row.childWait) hold(row.ownerId);
    }
    if (row.status === 'running' || orphaned) {
      reconcile.push({
        delegationId: row.id,
        worker: delegationWorker(row.parentRunId),
        childRunId: row.childRunId,
        childRunStatus: row.childStatus,
        orphaned,
        parentProcessId: row.parentProcessId,
      });
    }
  }
  const children = new Map<string, SchedulingCandidate[]>();
  const offered = new Map<string, number>();
  for (const row of rows) {
    if (row.status !== 'queued' || !row.parentStatus || !ACTIVE_RUN.has(row.parentStatus)) continue;
    const room = Math.max(1, Number(row.concurrency) || 1) - (runningPerParent.get(row.parentRunId) ?? 0) - (offered.get(row.parentRunId) ?? 0);
    if (room <= 0) continue;
    offered.set(row.parentRunId, (offered.get(row.parentRunId) ?? 0) + 1);
    const list = children.get(row.ownerId) ?? [];
    list.push({ kind: 'child', jobId: `d:${row.id}`, conversationId: `d:${row.id}`, teamId: delegationWorker(row.parentRunId), status: 'queued', delegationId: row.id, parentProcessId: row.parentProcessId });
    children.set(row.ownerId, list);
  }
  const parents = new Map<string, SchedulingCandidate[]>();
  for (const run of ready) {
    const list = parents.get(run.ownerId) ?? [];
    list.push({ kind: 'parent', jobId: `w:${run.id}`, conversationId: `w:${run.id}`, teamId: delegationWorker(run.id), status: 'ready', runId: run.id });
    parents.set(run.ownerId, list);
  }
  for (const owner of new Set([...parents.keys(), ...children.keys()])) {
    byOwner.set(owner, [...(parents.get(owner) ?? []), ...(children.get(owner) ?? []), ...(byOwner.get(owner) ?? [])]);
  }
  return reconcile;
}
