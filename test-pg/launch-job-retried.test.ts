import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Runs from '@/server/agents/runs';
import { suspendActiveRuns } from '@/server/agents/suspend';
import { getDb, schema } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { admitJob, launchJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../test/support/teams';
import { makeUser } from '../test/support/users';
import { until } from '../test/support/wait';

// ADR 044 §2: launchJob records the job's run inside the run's creating transaction, and afterwards finalizes the
// job at once if that run is already finished — but only when the record was stored. On Postgres that transaction's
// body runs again after a serialization failure, and the second attempt may find the job moved on (another
// process re-queued or re-admitted it) and record nothing. What must not happen: launchJob believing a record that
// rolled back and going on to finalize the job from a run the job never recorded. The flag is therefore set after
// the commit (afterCommit), never in the retried body.

/** The run-creating transaction's attempts, in order: what the job's row said, seen from inside each. */
const attempts: { runKey: string | null }[] = [];
/** Run ids launchJob looked up (it looks up the launched run only to finalize a job that recorded it). */
const lookedUp: string[] = [];
let moveOnAtSecondAttempt: string | null = null;

vi.mock('@/server/agents/runs', async (importOriginal) => {
  const real = await importOriginal<typeof Runs>();
  return {
    ...real,
    findRun: (id: string) => {
      lookedUp.push(id);
      return real.findRun(id);
    },
    startRun: (conversationId: string, input: Runs.StartInput, options: Runs.StartOptions) =>
      real.startRun(conversationId, input, {
        ...options,
        inTransaction: async (tx: Parameters<NonNullable<Runs.StartOptions['inTransaction']>>[0], run: Run) => {
          const jobId = moveOnAtSecondAttempt;
          if (jobId && attempts.length === 1) {
            // What another process committed between the two attempts: the job moved on to another run key. The
            // retried attempt's snapshot sees it, as it would see that process's commit.
            await tx.update(schema.jobs).set({ runKey: `job:${jobId}:moved-on` }).where(eq(schema.jobs.id, jobId));
          }
          const [row] = jobId ? await tx.select({ runKey: schema.jobs.runKey }).from(schema.jobs).where(eq(schema.jobs.id, jobId)) : [];
          attempts.push({ runKey: row?.runKey ?? null });
          await options.inTransaction?.(tx, run);
        },
      }),
  };
});

const injected = process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES;
beforeEach(() => {
  process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES = '1';
});
afterEach(() => {
  if (injected === undefined) delete process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES;
  else process.env.ENSEMBLE_INJECT_SERIALIZATION_FAILURES = injected;
});
afterAll(async () => {
  await suspendActiveRuns();
});

describe('launchJob under a retried run-creating transaction', () => {
  it('does not act on a run record whose attempt rolled back when the retry found the job moved on', async () => {
    const owner = await makeUser('launch');
    const { team } = await makeTeam(owner.id);
    const { jobs } = await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply done', draftKey: crypto.randomUUID() });
    const jobId = jobs[0]!.id;
    expect(await admitJob(jobId)).toBe(true);
    moveOnAtSecondAttempt = jobId;

    await launchJob(jobId);

    // The injected failure made the body run twice; the first attempt saw the job's own key (and recorded the run,
    // then rolled back), the second saw it moved on (and recorded nothing).
    expect(attempts).toEqual([{ runKey: `job:${jobId}:start` }, { runKey: `job:${jobId}:moved-on` }]);
    const [row] = await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, jobId));
    expect(row).toMatchObject({ status: 'running', runKey: `job:${jobId}:moved-on`, runId: null });
    const [run] = await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, row!.conversationId));
    expect(run).toBeDefined();
    // Must not happen: launchJob taking the rolled-back record for stored and looking the run up to finalize the job.
    expect(lookedUp).not.toContain(run!.id);

    // The run itself was committed and runs to its end; nothing above depends on when.
    await until(async () => ['success', 'error', 'cancelled'].includes((await getDb().select().from(schema.runs).where(eq(schema.runs.id, run!.id)))[0]!.status), 10_000, 'the run finished');
  }, 30_000);
});
