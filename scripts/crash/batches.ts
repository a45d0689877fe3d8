/**
 * Durable batches in the crash test (issue 30, ADR 059): batches started through the API while processes are killed,
 * then checked item by item from the stopped deployment's rows. Every item must end terminal (done, or failed after
 * spending its retry budget), with at most maxAttempts attempts, at most one successful run, no more runs than
 * attempts (a run is recorded with the attempt it spends), and nothing left queued or running.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import pg from 'pg';
import type { Cluster } from './cluster';
import { api, between, isRetryable, type Owner } from './workload';

/** One row's verb: most reply, a few always fail (they must spend exactly their budget and end failed). */
type Verb = 'reply' | 'fail';
export type PlannedBatch = {
  index: number;
  agentId: string;
  key: string;
  maxAttempts: number;
  rows: Array<{ v: string; ms: string; verb: Verb }>;
};
export type BatchAck = { id: string; attempts: number };

export const batchExpected = {
  reply: (batch: number, row: number) => `item ${batch}-${row}`,
  failure: (batch: number, row: number) => `planned failure ${batch}-${row}`,
};

const TEMPLATE = '/sleep {{ms}}\n/{{verb}} {{v}}';

/**
 * `count` batches of `items` rows for one agent of the batch owner. That owner has no team work: the owner-fair
 * rotation gives its items slots beside the team owners' jobs, so items run while the kills happen (another owner's
 * own jobs would go first: a batch's items come after its owner's other work).
 */
export function planBatches(count: number, items: number, agentId: string, random: () => number): PlannedBatch[] {
  return Array.from({ length: count }, (_, index) => {
    const rows = Array.from({ length: items }, (_, row) => {
      const verb: Verb = row % 7 === 3 ? 'fail' : 'reply';
      const v = verb === 'fail' ? batchExpected.failure(index, row) : batchExpected.reply(index, row);
      return { v, ms: String(between(random, 100, 900)), verb };
    });
    return { index, agentId, key: `crash-batch-${index}`, maxAttempts: 2 + (index % 2), rows };
  });
}

/** Start every planned batch at a random moment within spreadMs; a start whose response was lost is resent with its key. */
export async function startBatches(
  cluster: Cluster,
  owner: Owner,
  plan: PlannedBatch[],
  acks: Map<number, BatchAck>,
  refused: string[],
  spreadMs: number,
  random: () => number,
): Promise<void> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const moments = plan.map(() => between(random, 0, spreadMs));
  await Promise.all(
    plan.map(async (planned, i) => {
      await sleep(moments[i]!);
      for (let attempt = 1; ; attempt++) {
        try {
          const node = await cluster.any();
          const { body } = await api<{ batch: { id: string } }>(node.baseUrl, owner.token, 'POST', '/api/v1/batches', {
            target: { agentId: planned.agentId },
            template: TEMPLATE,
            columns: ['v', 'ms', 'verb'],
            items: planned.rows,
            concurrency: 4,
            maxAttempts: planned.maxAttempts,
            idempotencyKey: planned.key,
          });
          acks.set(planned.index, { id: body.batch.id, attempts: attempt });
          return;
        } catch (err) {
          if (!isRetryable(err) || attempt >= 30) {
            refused.push(`batch ${planned.index}: ${(err as Error).message}`);
            return;
          }
          await sleep(100);
        }
      }
    }),
  );
}

/** How many acknowledged batches are still running (their owner asks through the API, on any live process). */
export async function unfinishedBatches(cluster: Cluster, owner: Owner, plan: PlannedBatch[], acks: Map<number, BatchAck>): Promise<number> {
  let running = 0;
  for (const planned of plan) {
    const ack = acks.get(planned.index);
    if (!ack) continue;
    const node = await cluster.any();
    const { body } = await api<{ batch: { status: string } }>(node.baseUrl, owner.token, 'GET', `/api/v1/batches/${ack.id}`);
    if (body.batch.status === 'running') running += 1;
  }
  return running;
}

type BatchRow = { id: string; status: string; total: number; max_attempts: number };
type ItemRow = { id: string; batch_id: string; idx: number; status: string; attempts: number; result: string | null; error: string | null; run_id: string | null };
type ItemRun = { id: string; idempotency_key: string; status: string; created_at: number; finished_at: number | null };
export type BatchFacts = { batches: BatchRow[]; items: ItemRow[]; runs: ItemRun[] };

const QUERIES = {
  batches: 'select id, status, total, max_attempts from batches',
  items: 'select id, batch_id, idx, status, attempts, result, error, run_id from batch_items order by batch_id, idx',
  runs: `select id, idempotency_key, status, created_at, finished_at from runs where idempotency_key like 'batch-item:%'`,
};

/** Postgres answers timestamps as Dates, SQLite as epoch ms. */
const epoch = (value: unknown): number | null => (value instanceof Date ? value.getTime() : value == null ? null : Number(value));

/** The batch rows of the stopped deployment, read independently of server/db (as the other facts are). */
export async function batchFacts(where: { dataDir: string } | { url: string }): Promise<BatchFacts> {
  if ('url' in where) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    try {
      const read = async <T>(text: string) => (await client.query(text)).rows as T[];
      const runs = (await read<Record<string, unknown>>(QUERIES.runs)).map((r) => ({ ...r, created_at: epoch(r.created_at)!, finished_at: epoch(r.finished_at) }) as ItemRun);
      return { batches: await read<BatchRow>(QUERIES.batches), items: await read<ItemRow>(QUERIES.items), runs };
    } finally {
      await client.end();
    }
  }
  const db = new Database(path.join(where.dataDir, 'ensemble.db'), { fileMustExist: true });
  db.pragma('query_only = ON');
  try {
    /* eslint-disable no-restricted-syntax -- better-sqlite3's own .all(), not the app's */
    return {
      batches: db.prepare(QUERIES.batches).all() as BatchRow[],
      items: db.prepare(QUERIES.items).all() as ItemRow[],
      runs: db.prepare(QUERIES.runs).all() as ItemRun[],
    };
    /* eslint-enable no-restricted-syntax */
  } finally {
    db.close();
  }
}

export type BatchVerdict = {
  lost: string[];
  duplicated: string[];
  stuck: string[];
  wrong: string[];
  figures: {
    batches: number;
    items: number;
    done: number;
    failed: number;
    attempts: Record<number, number>;
    runs: number;
    expiredLeases: number;
    /** Kills that found an item run executing, and the item runs a kill cut (created before it, finished after). */
    killsMidBatch: number;
    runsCut: number;
  };
};

/** The per-item verdict (see the top of the file). */
export function verifyBatches(plan: PlannedBatch[], acks: Map<number, BatchAck>, facts: BatchFacts, killedAt: number[]): BatchVerdict {
  const cut = (kill: number) => facts.runs.filter((r) => r.created_at <= kill && (r.finished_at === null || r.finished_at > kill)).length;
  const verdict: BatchVerdict = {
    lost: [],
    duplicated: [],
    stuck: [],
    wrong: [],
    figures: {
      batches: 0,
      items: 0,
      done: 0,
      failed: 0,
      attempts: {},
      runs: facts.runs.length,
      expiredLeases: 0,
      killsMidBatch: killedAt.filter((k) => cut(k) > 0).length,
      runsCut: killedAt.reduce((n, k) => n + cut(k), 0),
    },
  };
  const runsOf = new Map<string, ItemRun[]>();
  for (const run of facts.runs) {
    const itemId = /^batch-item:(.+):\d+$/.exec(run.idempotency_key)?.[1] ?? '';
    runsOf.set(itemId, [...(runsOf.get(itemId) ?? []), run]);
  }
  for (const planned of plan) {
    const ack = acks.get(planned.index);
    if (!ack) continue;
    const batch = facts.batches.find((b) => b.id === ack.id);
    if (!batch) {
      verdict.lost.push(`batch ${planned.index} (${ack.id}) was acknowledged but is not stored`);
      continue;
    }
    verdict.figures.batches += 1;
    if (batch.status !== 'completed') verdict.stuck.push(`batch ${planned.index} is ${batch.status}`);
    const items = facts.items.filter((i) => i.batch_id === batch.id);
    if (items.length !== planned.rows.length || Number(batch.total) !== planned.rows.length) {
      verdict.lost.push(`batch ${planned.index}: ${items.length} items stored (total ${batch.total}), ${planned.rows.length} sent`);
    }
    for (const item of items) {
      const row = planned.rows[Number(item.idx)];
      const label = `batch ${planned.index} item ${item.idx}`;
      const attempts = Number(item.attempts);
      const runs = runsOf.get(item.id) ?? [];
      verdict.figures.items += 1;
      verdict.figures.attempts[attempts] = (verdict.figures.attempts[attempts] ?? 0) + 1;
      if (item.error === 'The item lost its lease before its run started') verdict.figures.expiredLeases += 1;
      if (item.status === 'queued' || item.status === 'running') verdict.stuck.push(`${label} is ${item.status} (attempts ${attempts})`);
      if (attempts > Number(batch.max_attempts)) verdict.duplicated.push(`${label}: ${attempts} attempts, at most ${batch.max_attempts}`);
      const successes = runs.filter((r) => r.status === 'success');
      if (successes.length > 1) verdict.duplicated.push(`${label}: ${successes.length} successful runs`);
      if (runs.length > attempts) verdict.duplicated.push(`${label}: ${runs.length} runs for ${attempts} attempts`);
      if (!row) {
        verdict.wrong.push(`${label}: no such row was sent`);
        continue;
      }
      if (item.status === 'done') {
        verdict.figures.done += 1;
        if (row.verb !== 'reply' || item.result !== row.v) verdict.wrong.push(`${label}: done with ${JSON.stringify(item.result)}, expected ${row.verb === 'reply' ? JSON.stringify(row.v) : 'a failure'}`);
        if (successes.length !== 1 || item.run_id !== successes[0]!.id) verdict.wrong.push(`${label}: done, but its run is not its one successful run`);
      } else if (item.status === 'failed') {
        verdict.figures.failed += 1;
        // A planned failure spends the whole budget; a reply row fails only if every attempt was lost to crashes.
        if (row.verb === 'fail' && attempts !== Number(batch.max_attempts)) verdict.wrong.push(`${label}: failed after ${attempts} attempts, budget ${batch.max_attempts}`);
        if (row.verb === 'reply') verdict.wrong.push(`${label}: a reply row failed (${item.error})`);
      } else if (item.status !== 'queued' && item.status !== 'running') {
        verdict.wrong.push(`${label} is ${item.status}`);
      }
    }
  }
  return verdict;
}
