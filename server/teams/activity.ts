import 'server-only';
import { and, asc, count, desc, eq, gt, inArray, like, lt, or, sql, type SQL } from 'drizzle-orm';
import { FEED_STATUS_GROUPS, asciiLower, type FeedFilter } from '@/lib/feed-filter';
import { LIMITS } from '@/lib/limits';
import type { ApiActivity, ApiActivityChanges, ApiJob } from '@/lib/types/team';
import { isStopReason } from '@/lib/types/stop-reason';
import { checkCitations } from '@/server/agents/receipts/citations';
import { receiptsOf } from '@/server/agents/receipts/ledger';
import type { StoredAssembly } from '@/server/agents/views';
import { databaseEngine, getDb, schema, type Db } from '@/server/db';
import { tieBreak } from '@/server/db/dialect';
import { attachmentsFor } from '@/server/files/attachments';
import { toApiJob } from './serialize';
import { requireTeam } from './teams';

type ActivityQuery = { revision?: number; limit: number; offset: number; details: boolean; before?: number } & Partial<FeedFilter>;
type Job = typeof schema.jobs.$inferSelect;

/**
 * The team's jobs, newest first (with `before`, only those with a lower seq: scroll-back). When the caller already
 * has the current revision, the answer is a tiny `{ revision, unchanged: true }` and no job row is read.
 */
export async function getActivity(ownerId: string, teamId: string, q: ActivityQuery): Promise<ApiActivity> {
  const db = getDb();
  const team = await requireTeam(ownerId, teamId, db);
  if (q.revision !== undefined && q.revision === team.revision) return { revision: team.revision, unchanged: true };
  const filter = filterCondition(q);
  const inTeam = and(eq(schema.jobs.teamId, teamId), filter);
  const [total] = await db.select({ n: count() }).from(schema.jobs).where(inTeam);
  const rows = await db
    .select()
    .from(schema.jobs)
    .where(q.before === undefined ? inTeam : and(inTeam, lt(schema.jobs.seq, q.before)))
    .orderBy(desc(schema.jobs.seq))
    .limit(q.limit)
    .offset(q.offset);
  return { revision: team.revision, totalJobs: total!.n, jobs: await serialize(db, ownerId, teamId, rows, q.details) };
}

/**
 * The jobs whose latest change came after team revision `since` (touchTeam stamps changed_revision), with
 * details, newest first, at most LIMITS.activity.maxLimit. A `since` ahead of the team (a client that saw a
 * different database) is truncated too, so the client starts over rather than trusting its copy.
 * With a feed filter, `changed` holds the changed jobs that match it and `unmatched` the ids of those that don't
 * (a job that just left the filter — a failed one no longer "in progress" — leaves the filtered feed), and
 * `totalJobs` is the filter's new count.
 */
export async function getActivityChanges(ownerId: string, teamId: string, since: number, filterBy: Partial<FeedFilter> = {}): Promise<ApiActivityChanges> {
  const db = getDb();
  const team = await requireTeam(ownerId, teamId, db);
  if (since > team.revision) return { revision: team.revision, since, changed: [], truncated: true };
  if (since === team.revision) return { revision: team.revision, since, changed: [], truncated: false };
  const max = LIMITS.activity.maxLimit;
  const rows = await db
    .select()
    .from(schema.jobs)
    .where(and(eq(schema.jobs.teamId, teamId), gt(schema.jobs.changedRevision, since)))
    .orderBy(desc(schema.jobs.seq))
    .limit(max + 1);
  const page = rows.slice(0, max);
  const filter = filterCondition(filterBy);
  if (!filter) return { revision: team.revision, since, changed: await serialize(db, ownerId, teamId, page, true), truncated: rows.length > max };
  const matching = new Set(
    page.length
      ? (
          await db
            .select({ id: schema.jobs.id })
            .from(schema.jobs)
            .where(and(eq(schema.jobs.teamId, teamId), inArray(schema.jobs.id, page.map((r) => r.id)), filter))
        ).map((r) => r.id)
      : [],
  );
  const [total] = await db.select({ n: count() }).from(schema.jobs).where(and(eq(schema.jobs.teamId, teamId), filter));
  return {
    revision: team.revision,
    since,
    changed: await serialize(db, ownerId, teamId, page.filter((r) => matching.has(r.id)), true),
    unmatched: page.filter((r) => !matching.has(r.id)).map((r) => r.id),
    totalJobs: total!.n,
    truncated: rows.length > max,
  };
}

/**
 * The feed filter as one SQL condition (undefined: no filter). Member: jobs sent to the member or by it. Text: a
 * substring of the request text, result or error, ASCII letters without case (SQLite's lower() folds only those,
 * and Postgres's lower() under the "C" collation; CJK and emoji match as written). instr() / strpos() rather than
 * LIKE, so % and _ in the text are plain characters.
 */
export function filterCondition(f: Partial<FeedFilter>): SQL | undefined {
  const parts: SQL[] = [];
  if (f.member) parts.push(or(eq(schema.jobs.memberId, f.member), eq(schema.jobs.sourceMemberId, f.member))!);
  if (f.status) parts.push(inArray(schema.jobs.status, [...FEED_STATUS_GROUPS[f.status]]));
  const needle = f.text ? asciiLower(f.text.trim()) : '';
  if (needle) {
    const j = schema.jobs;
    const has = (column: SQL | typeof j.text) =>
      databaseEngine() === 'postgres' ? sql`strpos(lower(${column} collate "C"), ${needle}) > 0` : sql`instr(lower(${column}), ${needle}) > 0`;
    parts.push(sql`(${has(j.text)} or ${has(sql`coalesce(${j.result}, '')`)} or ${has(sql`coalesce(${j.error}, '')`)})`);
  }
  return parts.length ? and(...parts) : undefined;
}

/**
 * Jobs as the API shows them: each with its receipt's status, a request with what the person attached (one read for
 * the page) and, with details, its run.
 */
async function serialize(db: Db, ownerId: string, teamId: string, rows: Job[], details: boolean): Promise<ApiJob[]> {
  const receiptIds = rows.map((r) => r.receiptJobId).filter((x): x is string => !!x);
  const receipts = new Map(
    receiptIds.length
      ? (
          await db
            .select({ id: schema.jobs.id, status: schema.jobs.status })
            .from(schema.jobs)
            .where(and(eq(schema.jobs.teamId, teamId), inArray(schema.jobs.id, receiptIds)))
        ).map((r) => [r.id, r])
      : [],
  );
  const runIds = rows.map((r) => r.runId).filter((x): x is string => !!x);
  const runs = details ? await jobRuns(db, runIds, rows) : undefined;
  const stops = details ? await stopReasons(db, runIds) : undefined;
  const attached = await attachmentsFor(ownerId, rows.filter((r) => r.kind === 'request').map((r) => r.id), db);
  return Promise.all(rows.map(async (r) => {
    const shown = toApiJob(r, r.receiptJobId ? (receipts.get(r.receiptJobId) ?? null) : null, details, runs && (r.runId ? (runs.get(r.runId) ?? null) : null));
    const job = await withCitations(r.kind === 'request' ? { ...shown, attachments: attached.get(r.id) ?? [] } : shown, r, details);
    // With details: why the job's run stopped early (a capped run completes or fails its job as the run did).
    return stops ? { ...job, stopReason: (r.runId && stops.get(r.runId)) || null } : job;
  }));
}

/** The stop reason of each run that has one (runs.stop_reason, written by finishRun). */
async function stopReasons(db: Db, runIds: string[]): Promise<Map<string, NonNullable<ApiJob['stopReason']>>> {
  if (!runIds.length) return new Map();
  const rows = await db.select({ id: schema.runs.id, stopReason: schema.runs.stopReason }).from(schema.runs).where(inArray(schema.runs.id, runIds));
  return new Map(rows.flatMap((r) => (isStopReason(r.stopReason) ? [[r.id, r.stopReason] as const] : [])));
}

/**
 * With details, a request's result carries its citations, each checked against the receipts of the member run that
 * wrote it: resolved means that run made that call, not that the result's claim about it is true. The ledger is
 * read only when the result cites something.
 */
async function withCitations(job: ApiJob, row: Job, details: boolean): Promise<ApiJob> {
  if (!details || row.kind !== 'request' || !row.result || !row.runId) return job;
  const cited = checkCitations(row.result, []);
  return { ...job, citations: cited.length ? checkCitations(row.result, await receiptsOf(row.runId)) : [] };
}

/**
 * The page's runs with their setup changes, in one query: changes only when the run's assembly differs from the
 * member conversation's previous run (an empty list, or no previous run, is null). With each, the job's earlier runs.
 */
async function jobRuns(db: Db, runIds: string[], jobs: readonly Job[]): Promise<Map<string, NonNullable<ApiJob['run']>>> {
  if (!runIds.length) return new Map();
  const rows = await db.select({ id: schema.runs.id, assembly: schema.runs.assembly }).from(schema.runs).where(inArray(schema.runs.id, runIds));
  const earlier = await earlierRuns(db, jobs);
  return new Map(
    rows.map((r) => {
      const changes = (r.assembly as StoredAssembly | null)?.changes ?? null;
      return [r.id, { id: r.id, setupChanges: changes?.length ? changes : null, earlierRunIds: earlier.get(r.id) ?? [] }];
    }),
  );
}

/**
 * For each job on its second or later run (it stopped for the person's answer and went on: its run key is
 * `job:<id>:answer:<key>`, execution.ts), its runs before the current one, oldest first, by current run id. Every run
 * of a job is keyed `job:<id>:…` on its member conversation (read by the conversation's part of its key index).
 */
async function earlierRuns(db: Db, jobs: readonly Job[]): Promise<Map<string, string[]>> {
  const resumed = jobs.filter((job): job is Job & { runId: string } => !!job.runId && !!job.runKey?.includes(':answer:'));
  if (!resumed.length) return new Map();
  // One read for the page: each job's runs (a job id is a UUID: nothing in the prefix is a LIKE wildcard).
  const rows = await db
    .select({ id: schema.runs.id, key: schema.runs.idempotencyKey })
    .from(schema.runs)
    .where(or(...resumed.map((job) => and(eq(schema.runs.conversationId, job.conversationId), like(schema.runs.idempotencyKey, `job:${job.id}:%`)))))
    .orderBy(asc(schema.runs.createdAt), asc(tieBreak(schema.runs.id)));
  return new Map(
    resumed.map((job) => [job.runId, rows.filter((r) => r.key.startsWith(`job:${job.id}:`) && r.id !== job.runId).map((r) => r.id)]),
  );
}
