import 'server-only';
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { ApiActivity, ApiJob } from '@/lib/types/team';
import type { StoredAssembly } from '@/server/agents/views';
import { getDb, schema, type Db } from '@/server/db';
import { toApiJob } from './serialize';
import { requireTeam } from './teams';

type ActivityQuery = { revision?: number; limit: number; offset: number; details: boolean };

/**
 * The team's jobs, newest first. When the caller already has the current revision, the answer is a tiny
 * `{ revision, unchanged: true }` and no job row is read.
 */
export function getActivity(ownerId: string, teamId: string, q: ActivityQuery): ApiActivity {
  const db = getDb();
  const team = requireTeam(ownerId, teamId, db);
  if (q.revision !== undefined && q.revision === team.revision) return { revision: team.revision, unchanged: true };
  const total = db.$client.prepare('select count(*) as n from jobs where team_id = ?').get(teamId) as { n: number };
  const rows = db
    .select()
    .from(schema.jobs)
    .where(eq(schema.jobs.teamId, teamId))
    .orderBy(desc(schema.jobs.seq))
    .limit(q.limit)
    .offset(q.offset)
    .all();
  const receiptIds = rows.map((r) => r.receiptJobId).filter((x): x is string => !!x);
  const receipts = new Map(
    receiptIds.length
      ? db
          .select({ id: schema.jobs.id, status: schema.jobs.status })
          .from(schema.jobs)
          .where(and(eq(schema.jobs.teamId, teamId), inArray(schema.jobs.id, receiptIds)))
          .all()
          .map((r) => [r.id, r])
      : [],
  );
  const runs = q.details ? jobRuns(db, rows.map((r) => r.runId).filter((x): x is string => !!x)) : undefined;
  return {
    revision: team.revision,
    totalJobs: total.n,
    jobs: rows.map((r) =>
      toApiJob(r, r.receiptJobId ? (receipts.get(r.receiptJobId) ?? null) : null, q.details, runs && (r.runId ? (runs.get(r.runId) ?? null) : null)),
    ),
  };
}

/**
 * The page's runs with their setup changes, in one query: changes only when the run's assembly differs from the
 * member conversation's previous run (an empty list, or no previous run, is null).
 */
function jobRuns(db: Db, runIds: string[]): Map<string, NonNullable<ApiJob['run']>> {
  if (!runIds.length) return new Map();
  const rows = db.select({ id: schema.runs.id, assembly: schema.runs.assembly }).from(schema.runs).where(inArray(schema.runs.id, runIds)).all();
  return new Map(
    rows.map((r) => {
      const changes = (r.assembly as StoredAssembly | null)?.changes ?? null;
      return [r.id, { id: r.id, setupChanges: changes?.length ? changes : null }];
    }),
  );
}
