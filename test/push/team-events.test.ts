import { requestWithSignal } from './request-with-signal';
import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { GET as eventsRoute } from '@/app/api/v1/teams/[id]/events/route';
import { GET as activityRoute } from '@/app/api/v1/teams/[id]/activity/route';
import { LIMITS } from '@/lib/limits';
import type { ApiActivityChanges } from '@/lib/types/team';
import { getDb, schema, writeTx } from '@/server/db';
import { pushBus, subscribeTeam, teamListenerCount, type TeamChange } from '@/server/push/bus';
import { closeAllStreams, openStreamCount } from '@/server/push/streams';
import { teamEventStream, type TeamPush } from '@/server/push/team-stream';
import { getActivityChanges } from '@/server/teams/activity';
import { sendRequest } from '@/server/teams/requests';
import { touchTeam } from '@/server/teams/revision';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { sseReader } from './sse';

const BASE = 'http://localhost/api/v1';
type TestUser = Awaited<ReturnType<typeof makeUser>>;
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const revision = async (teamId: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, teamId)))[0]!.revision;

function open(user: TestUser, teamId: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = eventsRoute(requestWithSignal(`${BASE}/teams/${teamId}/events`, { ...user.auth, ...headers }, abort.signal), ctx(teamId));
  return { abort, res };
}
const activity = (user: TestUser, teamId: string, query: string) =>
  activityRoute(new Request(`${BASE}/teams/${teamId}/activity${query}`, { headers: user.auth }), ctx(teamId));

afterEach(() => closeAllStreams());

describe('team event stream', () => {
  it('says the revision first, then each change with its revision as id and the changed jobs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const { abort, res } = open(alice, team.id);
    const r = await res;
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const stream = sseReader(r);
    const first = await stream.next();
    expect(first).toEqual({ id: String(await revision(team.id)), event: 'team', data: { teamId: team.id, revision: await revision(team.id), jobIds: null } });

    const { jobs } = await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: 'hello', draftKey: 'k1' });
    // The creation's own announcement may land after the stream opened (its after-commit read of the revision can be
    // slower than this test, and then reads this request's revision): messages are hints (ADR 020), so read on to the
    // one naming the request, within a couple of messages.
    const change = await stream.until((m) => ((m.data as TeamPush | undefined)?.jobIds ?? []).includes(jobs[0]!.id), 2);
    expect(change?.id).toBe(String(await revision(team.id)));
    expect((change?.data as TeamPush).jobIds).toEqual([jobs[0]!.id]);
    abort.abort();
    expect(await stream.next()).toBeNull();
  });

  it('resumes with Last-Event-ID: nothing to read when current, "read since" when behind', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const current = await revision(team.id);
    const upToDate = sseReader(await open(alice, team.id, { 'last-event-id': String(current) }).res);
    expect((await upToDate.next())?.data).toEqual({ teamId: team.id, revision: current, jobIds: [] });
    const behind = sseReader(await open(alice, team.id, { 'last-event-id': String(current - 1) }).res);
    expect((await behind.next())?.data).toEqual({ teamId: team.id, revision: current, jobIds: null });
  });

  it('answers 404 to another owner, exactly like a missing team, and opens no stream', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const listeners = teamListenerCount();
    const foreign = await open(bob, team.id).res;
    const missing = await open(bob, 'no-such-team').res;
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await missing.json());
    expect(teamListenerCount()).toBe(listeners);
    expect(openStreamCount(bob.id)).toBe(0);
  });

  it(`allows ${LIMITS.push.maxStreamsPerAccount} open streams per account; one more is 429 with Retry-After`, async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const opened = [];
    for (let i = 0; i < LIMITS.push.maxStreamsPerAccount; i++) opened.push(open(alice, team.id));
    expect((await Promise.all(opened.map(async (o) => o.res))).map((r) => r.status)).toEqual(opened.map(() => 200));
    const refused = await open(alice, team.id).res;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(LIMITS.push.retryAfterSeconds));
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
    // Another account is not affected, and closing one stream frees its slot.
    const bob = await makeUser('bob');
    expect((await open(bob, (await makeTeam(bob.id)).team.id).res).status).toBe(200);
    opened[0]!.abort.abort();
    expect(openStreamCount(alice.id)).toBe(LIMITS.push.maxStreamsPerAccount - 1);
    expect((await open(alice, team.id).res).status).toBe(200);
  });

  it('leaves no listener and no slot behind when the client goes away or the server shuts down', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const listeners = teamListenerCount();
    const a = open(alice, team.id);
    const b = open(alice, team.id);
    const [ra, rb] = [sseReader(await a.res), sseReader(await b.res)];
    expect(teamListenerCount()).toBe(listeners + 2);
    a.abort.abort();
    expect(await ra.until(() => false).catch((e: Error) => e.message)).toBe('stream ended before the expected message');
    closeAllStreams();
    expect(await rb.until(() => false).catch((e: Error) => e.message)).toBe('stream ended before the expected message');
    expect(teamListenerCount()).toBe(listeners);
    expect(openStreamCount(alice.id)).toBe(0);
  });

  it('cleans up when the reader cancels the body while a read is waiting', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const listeners = teamListenerCount();
    const res = await open(alice, team.id).res;
    const reader = res.body!.getReader();
    await reader.read();
    const waiting = reader.read();
    await reader.cancel();
    expect((await waiting).done).toBe(true);
    expect(teamListenerCount()).toBe(listeners);
    expect(openStreamCount(alice.id)).toBe(0);
  });

  it('sends a heartbeat comment when nothing happens', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const abort = new AbortController();
    const stream = sseReader(
      await teamEventStream({ accountId: alice.id, teamId: team.id, readRevision: () => 7, lastEventId: 7, signal: abort.signal, signedIn: async () => true, heartbeatMs: 10 }),
    );
    expect((await stream.next())?.id).toBe('7');
    expect(await stream.next()).toEqual({ comment: 'heartbeat' });
    abort.abort();
  });

  it('coalesces a flood of 1,000 changes an idle reader has not read into one message at the latest revision', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const abort = new AbortController();
    const stream = sseReader(
      await teamEventStream({ accountId: alice.id, teamId: team.id, readRevision: () => 0, lastEventId: 0, signal: abort.signal, signedIn: async () => true, heartbeatMs: 60_000 }),
    );
    for (let i = 1; i <= 1_000; i++) pushBus().emit('team', { teamId: team.id, revision: i, jobIds: [`job-${i}`] });
    // The first message was still unsent, so everything merged into it: latest revision, too many ids to list.
    expect(await stream.next()).toEqual({ id: '1000', event: 'team', data: { teamId: team.id, revision: 1_000, jobIds: null } });
    pushBus().emit('team', { teamId: team.id, revision: 1_001, jobIds: ['a'] });
    pushBus().emit('team', { teamId: team.id, revision: 1_002, jobIds: ['b', 'a'] });
    expect(await stream.next()).toEqual({ id: '1002', event: 'team', data: { teamId: team.id, revision: 1_002, jobIds: ['a', 'b'] } });
    abort.abort();
    expect(await stream.next()).toBeNull();
  });
});

describe('announcing changes', () => {
  it('announces after the transaction, with the revision as committed: a rolled-back bump is never announced', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const before = await revision(team.id);
    const heard: TeamChange[] = [];
    const off = subscribeTeam(team.id, (c) => heard.push(c));
    // Each bump names its own marker: the team's creation may still be announcing (its flush reads the revision
    // after its commit, and on Postgres the message comes back through NOTIFY), so the test tells its own apart.
    const ROLLED_BACK = 'rolled-back-bump';
    const COMMITTED = 'committed-bump';
    const naming = (marker: string) => heard.filter((c) => c.jobIds.includes(marker));
    await expect(
      writeTx(async (tx) => {
        await touchTeam(tx, team.id, [ROLLED_BACK]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await writeTx(async (tx) => {
      await touchTeam(tx, team.id, [COMMITTED]);
      expect(naming(COMMITTED)).toEqual([]);
    });
    // The announcement reads the committed revision after the commit: it comes once that read is done.
    await until(() => naming(COMMITTED).length > 0, 5_000, 'the announcement');
    off();
    expect(naming(COMMITTED)).toEqual([{ teamId: team.id, revision: before + 1, jobIds: [COMMITTED] }]);
    expect(naming(ROLLED_BACK)).toEqual([]);
  });
});

describe('activity?since and changed_revision', () => {
  it('stamps the jobs a change touched with the new revision and lists only those after since', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const [m1, m2] = team.members;
    const first = (await sendRequest(alice.id, team.id, { memberIds: [m1!.id], text: 'one', draftKey: 'a' })).jobs[0]!;
    const r1 = await revision(team.id);
    const second = (await sendRequest(alice.id, team.id, { memberIds: [m2!.id], text: 'two', draftKey: 'b' })).jobs[0]!;
    const r2 = await revision(team.id);
    const stamp = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!.changedRevision;
    expect([await stamp(first.id), await stamp(second.id)]).toEqual([r1, r2]);
    // A repeated draft key creates nothing: no bump, no stamp.
    await sendRequest(alice.id, team.id, { memberIds: [m2!.id], text: 'two', draftKey: 'b' });
    expect(await revision(team.id)).toBe(r2);

    expect((await getActivityChanges(alice.id, team.id, r1)).changed.map((j) => j.id)).toEqual([second.id]);
    const res = await activity(alice, team.id, `?since=${r1 - 1}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ApiActivityChanges;
    expect(body).toMatchObject({ revision: r2, since: r1 - 1, truncated: false });
    expect(body.changed.map((j) => j.id)).toEqual([second.id, first.id]);
    expect(await getActivityChanges(alice.id, team.id, r2)).toEqual({ revision: r2, since: r2, changed: [], truncated: false });
    expect((await getActivityChanges(alice.id, team.id, r2 + 1)).truncated).toBe(true);
  });

  it('pages older history with before=SEQ, newest first', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const ids: string[] = [];
    for (const i of [0, 1, 2]) ids.push((await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: `t${i}`, draftKey: `d${i}` })).jobs[0]!.id);
    const seqOf = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!.seq;
    const res = await activity(alice, team.id, `?before=${await seqOf(ids[2]!)}&limit=1`);
    expect(((await res.json()) as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id)).toEqual([ids[1]]);
  });

  it('names the field in a 422 for bad since/before values', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    for (const [query, field] of [
      ['?since=abc', 'since'],
      ['?since=-1', 'since'],
      ['?since=1&before=3', 'since'],
      ['?before=0', 'before'],
      ['?before=3&offset=2', 'before'],
    ] as const) {
      const res = await activity(alice, team.id, query);
      expect(res.status, query).toBe(422);
      expect(Object.keys(((await res.json()) as { error: { fields: Record<string, string> } }).error.fields), query).toEqual([field]);
    }
  });

  it('answers since for another owner with 404', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    expect((await activity(bob, team.id, '?since=0')).status).toBe(404);
  });
});
