import { requestWithSignal } from './request-with-signal';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as listEventsRoute } from '@/app/api/v1/teams/events/route';
import { LIMITS } from '@/lib/limits';
import { accountTeamsListenerCount, pushBus } from '@/server/push/bus';
import { closeAllStreams, openStreamCount } from '@/server/push/streams';
import { teamListEventStream } from '@/server/push/team-list-stream';
import { deleteTeam } from '@/server/teams/lifecycle';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { sseReader } from './sse';

type TestUser = Awaited<ReturnType<typeof makeUser>>;

function open(user: TestUser) {
  const abort = new AbortController();
  const res = listEventsRoute(requestWithSignal('http://localhost/api/v1/teams/events', user.auth, abort.signal), { params: Promise.resolve({}) });
  return { abort, res };
}
const send = (user: TestUser, team: Awaited<ReturnType<typeof makeTeam>>['team'], key: string) =>
  sendRequest(user.id, team.id, { memberIds: [team.members[0]!.id], text: 'hello', draftKey: key });

afterEach(() => closeAllStreams());

describe('teams list event stream', () => {
  it("says re-read first, then names each of the owner's changed teams — and never another owner's", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team: alices } = await makeTeam(alice.id);
    const { team: bobs } = await makeTeam(bob.id);
    const a = open(alice);
    const b = open(bob);
    const [ra, rb] = [await a.res, await b.res];
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(ra.headers.get('content-type')).toContain('text/event-stream');
    const [sa, sb] = [sseReader(ra), sseReader(rb)];
    expect((await sa.next())?.data).toEqual({ teamIds: null });
    expect((await sb.next())?.data).toEqual({ teamIds: null });

    await send(alice, alices, 'k1');
    expect((await sa.next())?.data).toEqual({ teamIds: [alices.id] });
    // What must not happen: bob hearing of alice's team. His next message is his own change only.
    await send(bob, bobs, 'k2');
    expect((await sb.next())?.data).toEqual({ teamIds: [bobs.id] });
    a.abort.abort();
    b.abort.abort();
  });

  it('announces a deleted team (its row is gone, so the owner comes from the caller)', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const { abort, res } = open(alice);
    const stream = sseReader(await res);
    await stream.next();
    await deleteTeam(alice.id, team.id);
    expect((await stream.next())?.data).toEqual({ teamIds: [team.id] });
    abort.abort();
  });

  it('without a session → 401, and no stream', async () => {
    const res = await listEventsRoute(new Request('http://localhost/api/v1/teams/events'), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
  });

  it(`shares the per-account cap of ${LIMITS.push.maxStreamsPerAccount} streams; one more is 429 with Retry-After; none left behind`, async () => {
    const alice = await makeUser('alice');
    const listeners = accountTeamsListenerCount();
    const opened = [];
    for (let i = 0; i < LIMITS.push.maxStreamsPerAccount; i++) opened.push(open(alice));
    expect((await Promise.all(opened.map(async (o) => o.res))).map((r) => r.status)).toEqual(opened.map(() => 200));
    const refused = await open(alice).res;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(LIMITS.push.retryAfterSeconds));
    expect(accountTeamsListenerCount()).toBe(listeners + LIMITS.push.maxStreamsPerAccount);
    for (const o of opened) o.abort.abort();
    expect(accountTeamsListenerCount()).toBe(listeners);
    expect(openStreamCount(alice.id)).toBe(0);
  });

  it('coalesces a flood an idle reader has not read into one message ("re-read" past 200 teams)', async () => {
    const alice = await makeUser('alice');
    const abort = new AbortController();
    const stream = sseReader(await teamListEventStream({ accountId: alice.id, signal: abort.signal, signedIn: async () => true, heartbeatMs: 60_000 }));
    const first = await stream.next();
    for (let i = 0; i < 1_000; i++) pushBus().emit('accountTeams', { ownerId: alice.id, teamId: `t-${i}` });
    const flood = await stream.next();
    expect(flood?.data).toEqual({ teamIds: null });
    expect(Number(flood?.id)).toBeGreaterThan(Number(first?.id));
    pushBus().emit('accountTeams', { ownerId: alice.id, teamId: 'a' });
    pushBus().emit('accountTeams', { ownerId: alice.id, teamId: 'b' });
    pushBus().emit('accountTeams', { ownerId: alice.id, teamId: 'a' });
    pushBus().emit('accountTeams', { ownerId: 'someone-else', teamId: 'c' });
    expect((await stream.next())?.data).toEqual({ teamIds: ['a', 'b'] });
    abort.abort();
    expect(await stream.next()).toBeNull();
  });
});
