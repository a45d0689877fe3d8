import 'server-only';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ApiCancelAllResult } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { stopJobRun, wakeScheduler } from '@/server/scheduler/signal';
import { cancelInTx } from './cancel';
import { touchTeam } from './revision';
import { toApiJob } from './serialize';
import { requireTeam } from './teams';

/**
 * Cancel every unfinished job of a team in one transaction (one revision bump): each one exactly as cancelJob
 * would (server/teams/cancel.ts cancelInTx) — not admitted or waiting → cancelled at once with its shared-record
 * line, running → cancelling and its run stopped after the commit, already cancelling → unchanged. Answers each
 * job as cancelling it alone would, oldest first (the order they were requested in). Work queued after the commit (a stopping run's last
 * handoff) is not swept up: it shows in the feed and can be cancelled again.
 */
export async function cancelAllJobs(ownerId: string, teamId: string): Promise<ApiCancelAllResult> {
  const outcome = await writeTx(async (tx) => {
    await requireTeam(ownerId, teamId, tx);
    const jobs = await tx
      .select()
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, teamId), inArray(schema.jobs.status, [...schema.UNFINISHED_JOB_STATUSES])))
      .orderBy(asc(schema.jobs.seq));
    // One at a time, oldest first (each writes its shared-record line).
    const results: Awaited<ReturnType<typeof cancelInTx>>[] = [];
    for (const job of jobs) results.push(await cancelInTx(tx, job));
    const changed = results.filter((r) => r.changed).map((r) => r.job.id);
    if (changed.length) await touchTeam(tx, teamId, changed);
    return results;
  });
  for (const r of outcome) if (r.stopRun) stopJobRun(r.job.id);
  if (outcome.length) wakeScheduler();
  return { jobs: outcome.map((r) => toApiJob(r.job, null, true)) };
}
