import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import * as activityRoute from '@/app/api/v1/teams/[id]/activity/route';
import { FEED_STATUS_GROUPS, asciiLower, type FeedFilter } from '@/lib/feed-filter';
import type { ApiJob, JobStatus } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { getActivity, getActivityChanges } from '@/server/teams/activity';
import { sendRequest } from '@/server/teams/requests';
import { touchTeam } from '@/server/teams/revision';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

/*
 * The feed filter on the activity read: member, status group and text, alone and together, with `before` paging and
 * `since` patches. Jobs are queued through sendRequest and then moved by hand to the state under test (the scheduler
 * is not what is tested here).
 */
type Seed = { member: number; text: string; status?: JobStatus; result?: string | null; error?: string | null };

async function seed(ownerId: string, teamId: string, memberIds: string[], items: Seed[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, item] of items.entries()) {
    const job = (await sendRequest(ownerId, teamId, { memberIds: [memberIds[item.member]!], text: item.text, draftKey: `d${i}-${Math.random()}` })).jobs[0]!;
    if (item.status || item.result !== undefined || item.error !== undefined) await setJob(teamId, job.id, item);
    ids.push(job.id);
  }
  return ids;
}

async function setJob(teamId: string, jobId: string, item: Partial<Seed>) {
  await writeTx(async (tx) => {
    await tx
      .update(schema.jobs)
      .set({
        ...(item.status ? { status: item.status } : {}),
        ...(item.result !== undefined ? { result: item.result } : {}),
        ...(item.error !== undefined ? { error: item.error } : {}),
        updatedAt: new Date(),
      })
      .where(eq(schema.jobs.id, jobId));
    await touchTeam(tx, teamId, [jobId]);
  });
}

const read = async (ownerId: string, teamId: string, filter: Partial<FeedFilter>, extra: { before?: number; limit?: number } = {}) => {
  const answer = await getActivity(ownerId, teamId, { limit: extra.limit ?? 200, offset: 0, details: true, before: extra.before, ...filter });
  if (answer.unchanged) throw new Error('unexpected unchanged');
  return answer;
};
const texts = (jobs: ApiJob[]) => jobs.map((j) => j.text).sort();

async function team3() {
  const alice = await makeUser('alice');
  const { team } = await makeTeam(alice.id, ['Research', 'Review', 'Writer']);
  return { alice, team, ids: team.members.map((m) => m.id) };
}

describe('feed filter: member, status, text', () => {
  it('filters by member (sent to it or by it), by status group and by both', async () => {
    const { alice, team, ids } = await team3();
    await seed(alice.id, team.id, ids, [
      { member: 0, text: 'r-done', status: 'completed', result: 'ok' },
      { member: 0, text: 'r-failed', status: 'failed', error: 'boom' },
      { member: 1, text: 'v-waiting', status: 'waiting_input' },
      { member: 1, text: 'v-queued' },
      { member: 2, text: 'w-running', status: 'running' },
      { member: 2, text: 'w-cancelled', status: 'cancelled' },
    ]);
    expect(texts((await read(alice.id, team.id, { member: ids[0] })).jobs)).toEqual(['r-done', 'r-failed']);
    expect(texts((await read(alice.id, team.id, { status: 'in_progress' })).jobs)).toEqual(['v-queued', 'w-running']);
    expect(texts((await read(alice.id, team.id, { status: 'needs_input' })).jobs)).toEqual(['v-waiting']);
    expect(texts((await read(alice.id, team.id, { member: ids[2], status: 'cancelled' })).jobs)).toEqual(['w-cancelled']);
    expect((await read(alice.id, team.id, { member: ids[2], status: 'failed' })).jobs).toEqual([]);
    // The count is the filter's, not the team's.
    expect((await read(alice.id, team.id, { member: ids[1] })).totalJobs).toBe(2);
    expect((await read(alice.id, team.id, {})).totalJobs).toBe(6);
  });

  it('a member filter includes the requests that member sent to others', async () => {
    const { alice, team, ids } = await team3();
    const [jobId] = await seed(alice.id, team.id, ids, [{ member: 1, text: 'handoff from Research' }]);
    await writeTx(async (tx) => {
      await tx.update(schema.jobs).set({ sourceMemberId: ids[0] }).where(eq(schema.jobs.id, jobId!));
      await touchTeam(tx, team.id, [jobId!]);
    });
    expect(texts((await read(alice.id, team.id, { member: ids[0] })).jobs)).toEqual(['handoff from Research']);
    expect(texts((await read(alice.id, team.id, { member: ids[1] })).jobs)).toEqual(['handoff from Research']);
    expect((await read(alice.id, team.id, { member: ids[2] })).jobs).toEqual([]);
  });

  it('matches text in the request, its result or its error; ASCII ignores case; CJK and emoji match as written', async () => {
    const { alice, team, ids } = await team3();
    await seed(alice.id, team.id, ids, [
      { member: 0, text: 'Summarise the Q3 REPORT', status: 'completed', result: 'Done.' },
      { member: 0, text: 'plain', status: 'completed', result: '売上は増加しました 📈 up' },
      { member: 1, text: 'other', status: 'failed', error: 'Rate limit: 100% used_up' },
      { member: 1, text: 'café crème' },
    ]);
    const match = async (text: string) => texts((await read(alice.id, team.id, { text })).jobs);
    expect(await match('q3 report')).toEqual(['Summarise the Q3 REPORT']);
    expect(await match('売上')).toEqual(['plain']);
    expect(await match('📈')).toEqual(['plain']);
    expect(await match('100% used_')).toEqual(['other']);
    // % and _ are characters, not wildcards.
    expect(await match('1_0')).toEqual([]);
    expect(await match('%')).toEqual(['other']);
    expect(await match('CAFÉ')).toEqual([]); // only ASCII letters fold (documented in ADR 029)
    expect(await match('café')).toEqual(['café crème']);
    expect(await match('  done.  ')).toEqual(['Summarise the Q3 REPORT']);
    expect(await match('nothing like this')).toEqual([]);
  });

  it('pages backwards with `before` inside the filtered set, without gaps or repeats', async () => {
    const { alice, team, ids } = await team3();
    const items: Seed[] = Array.from({ length: 45 }, (_, i) => ({ member: i % 3, text: `job ${i} ${i % 3 === 0 ? 'needle' : 'hay'}` }));
    await seed(alice.id, team.id, ids, items);
    const seen: string[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await read(alice.id, team.id, { text: 'NEEDLE' }, { before, limit: 4 });
      expect(page.totalJobs).toBe(15);
      seen.push(...page.jobs.map((j) => j.text!));
      if (page.jobs.length < 4) break;
      before = Math.min(...page.jobs.map((j) => j.seq));
    }
    expect(seen).toEqual(items.map((it) => it.text).filter((t) => t.includes('needle')).reverse());
  });

  it('since with a filter: matching changes, the ids that left the filter, and the filter’s new count', async () => {
    const { alice, team, ids } = await team3();
    const [a, b, c] = await seed(alice.id, team.id, ids, [
      { member: 0, text: 'alpha' },
      { member: 1, text: 'beta' },
      { member: 2, text: 'gamma' },
    ]);
    const at = (await read(alice.id, team.id, { status: 'in_progress' })).revision;
    await setJob(team.id, a!, { status: 'failed', error: 'x' });
    await setJob(team.id, b!, { status: 'running' });
    const changes = await getActivityChanges(alice.id, team.id, at, { status: 'in_progress' });
    expect(changes.changed.map((j) => j.id)).toEqual([b]);
    expect(changes.unmatched).toEqual([a]);
    expect(changes.totalJobs).toBe(2);
    expect(changes.truncated).toBe(false);
    // Without a filter the answer is as before: every changed job, no unmatched list.
    const plain = await getActivityChanges(alice.id, team.id, at);
    expect(plain.changed.map((j) => j.id).sort()).toEqual([a, b].sort());
    expect(plain.unmatched).toBeUndefined();
    expect(c).toBeTruthy();
  });

  it('agrees with a plain-JS oracle on random jobs and filters', async () => {
    const { alice, team, ids } = await team3();
    const alphabet = ['a', 'B', 'é', '研', '🤖', ' ', '%', '_'];
    const word = fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 4 }).map((a) => a.join(''));
    const statuses = Object.values(FEED_STATUS_GROUPS).flat();
    const jobs = fc.sample(fc.record({ member: fc.integer({ min: 0, max: 2 }), text: word.map((w) => `t${w}`), status: fc.constantFrom(...statuses), result: fc.option(word), error: fc.option(word) }), { numRuns: 40, seed: 12 });
    await seed(alice.id, team.id, ids, jobs);
    const filters = fc.record({
      member: fc.option(fc.constantFrom(...ids)),
      status: fc.option(fc.constantFrom(...(Object.keys(FEED_STATUS_GROUPS) as Array<keyof typeof FEED_STATUS_GROUPS>))),
      text: word,
    });
    await fc.assert(
      fc.asyncProperty(filters, async (f) => {
        const needle = asciiLower(f.text.trim());
        const expected = jobs
          .filter((j) => f.member === null || ids[j.member] === f.member)
          .filter((j) => f.status === null || (FEED_STATUS_GROUPS[f.status] as readonly string[]).includes(j.status))
          .filter((j) => !needle || [j.text, j.result ?? '', j.error ?? ''].some((s) => asciiLower(s).includes(needle)))
          .map((j) => j.text)
          .sort();
        expect(texts((await read(alice.id, team.id, f)).jobs)).toEqual(expected);
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});

describe('feed filter over the API', () => {
  it('validates the params: unknown status, text at 200 characters and one past (ASCII, CJK, emoji), 800 bytes', async () => {
    const { alice, team, ids } = await team3();
    await seed(alice.id, team.id, ids, [{ member: 0, text: 'x' }]);
    const get = (qs: string) => call(activityRoute.GET, { headers: alice.auth, url: `http://localhost/api/v1/teams/${team.id}/activity?${qs}`, params: { id: team.id } });
    const q = (text: string) => `text=${encodeURIComponent(text)}`;
    expect((await get('status=nope')).status).toBe(422);
    expect((await get('status=failed&member=' + ids[0])).status).toBe(200);
    expect((await get(q('a'.repeat(200)))).status).toBe(200);
    expect((await get(q('a'.repeat(201)))).body).toMatchObject({ error: { fields: { text: expect.stringContaining('200 characters') } } });
    expect((await get(q('研'.repeat(200)))).status).toBe(200); // 600 bytes
    expect((await get(q('研'.repeat(201)))).status).toBe(422);
    expect((await get(q('🤖'.repeat(200)))).status).toBe(200); // 800 bytes
    expect((await get(q('🤖'.repeat(201)))).status).toBe(422);
    const found = await get(`details=1&${q('X')}`);
    expect((found.body.jobs as ApiJob[]).map((j) => j.text)).toEqual(['x']);
    // since + filter is allowed and answers with the unmatched list.
    const since = await get(`since=0&status=failed`);
    expect(since.status).toBe(200);
    expect(since.body).toMatchObject({ changed: [], unmatched: [expect.any(String)], totalJobs: 0 });
  });

  it('must not show another owner’s jobs: their team is a 404, their member id matches nothing in mine', async () => {
    const { alice, team, ids } = await team3();
    const bob = await makeUser('bob');
    const bobs = (await makeTeam(bob.id)).team;
    await seed(bob.id, bobs.id, bobs.members.map((m) => m.id), [{ member: 0, text: 'bob secret' }]);
    await seed(alice.id, team.id, ids, [{ member: 0, text: 'alice' }]);
    const get = (teamId: string, qs: string) => call(activityRoute.GET, { headers: alice.auth, url: `http://localhost/api/v1/teams/${teamId}/activity?${qs}`, params: { id: teamId } });
    expect((await get(bobs.id, 'text=secret')).status).toBe(404);
    expect((await get(bobs.id, 'since=0&text=secret')).status).toBe(404);
    const mine = await get(team.id, `details=1&member=${bobs.members[0]!.id}`);
    expect(mine.body).toMatchObject({ jobs: [], totalJobs: 0 });
  });
});
