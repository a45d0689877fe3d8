import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { activeEngine } from '@/server/db/active-engine';
import { databaseEngine } from '@/server/db/engine';
import { getDb, schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { STAMP_CHANGED_SQL, touchTeam } from '@/server/teams/revision';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

/*
 * touchTeam stamps the jobs a change touched. It runs several times per job, so what it reads must not grow with the
 * team's history, and it must never stamp a job of another team, whatever ids it is handed.
 */
const stampOf = async (id: string) =>
  (await getDb().select({ r: schema.jobs.changedRevision }).from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!.r;

describe('touchTeam', () => {
  it("stamps only its own team's jobs: another team's job id handed to it is left as it was", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team: ours } = await makeTeam(alice.id);
    const { team: theirs } = await makeTeam(bob.id);
    const mine = (await sendRequest(alice.id, ours.id, { memberIds: [ours.members[0]!.id], text: 'mine', draftKey: 'm' })).jobs[0]!;
    const foreign = (await sendRequest(bob.id, theirs.id, { memberIds: [theirs.members[0]!.id], text: 'theirs', draftKey: 't' })).jobs[0]!;
    const foreignStamp = await stampOf(foreign.id);

    const revision = await writeTx((tx) => touchTeam(tx, ours.id, [mine.id, foreign.id]));

    expect(await stampOf(mine.id)).toBe(revision);
    // Must not happen: a revision of Alice's team written onto Bob's job (his feed's `since` would skip or repeat it).
    expect(await stampOf(foreign.id)).toBe(foreignStamp);
  });

  it.runIf(databaseEngine() === 'sqlite')(
    "SQLite: finds the stamped rows by id and through the receipt index, never by walking the team's jobs",
    () => {
      const engine = activeEngine();
      if (engine.kind !== 'sqlite') throw new Error('SQLite only');
      const plan = engine.sqlite.reader.$client
        .prepare(`explain query plan ${STAMP_CHANGED_SQL}`)
        .all(1, 'team', '["a"]', '["a"]') as Array<{ detail: string }>;
      const jobsAccess = plan.map((p) => p.detail).filter((d) => /\b(SEARCH|SCAN) (jobs|r)\b/.test(d));
      expect(jobsAccess.length).toBeGreaterThanOrEqual(2);
      // Must not happen: a scan of jobs, or a search by team (the team's whole history, once per step of every job).
      for (const access of jobsAccess) expect(access).toMatch(/USING INDEX (jobs_id_unique|jobs_receipt_idx) \((id|receipt_job_id)=\?\)/);
    },
  );
});
