import '../auth/support/next-auth';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as conversationEventsRoute } from '@/app/api/v1/conversations/[id]/events/route';
import { GET as teamEventsRoute } from '@/app/api/v1/teams/[id]/events/route';
import { GET as listEventsRoute } from '@/app/api/v1/teams/events/route';
import { setAccountDisabled } from '@/server/admin/accounts';
import { changePassword } from '@/server/auth/password-change';
import { signOutEverywhere } from '@/server/auth/sign-out-everywhere';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { createApiToken, revokeApiToken } from '@/server/auth/tokens';
import { findUserById } from '@/server/auth/users';
import { schema, writeTx } from '@/server/db';
import { pushBus } from '@/server/push/bus';
import { closeAllStreams, openStreamCount } from '@/server/push/streams';
import { teamListEventStream } from '@/server/push/team-list-stream';
import { eq } from 'drizzle-orm';
import { conversationWith } from '../agents/helpers';
import { signInOverHttp } from '../auth/support/http-auth';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { requestWithSignal } from './request-with-signal';
import { sseReader } from './sse';

/**
 * What must not happen: a stream opened with a credential that has since been revoked (sign out everywhere, the
 * token revoked, a password change, the account disabled) going on hearing the account's changes and live output,
 * or holding one of its stream slots. The routes' heartbeat is 15 s, so a stream that ends well within
 * CLOSED_WITHIN_MS was ended by the revocation itself, not by a later heartbeat.
 */
const CLOSED_WITHIN_MS = 3_000;
const PASSWORD = 'correct horse battery';

afterEach(() => closeAllStreams());

type Headers = Record<string, string>;
const params = <P>(p: P) => ({ params: Promise.resolve(p) });

function openList(headers: Headers) {
  const abort = new AbortController();
  const res = listEventsRoute(requestWithSignal('http://localhost/api/v1/teams/events', headers, abort.signal), params({}));
  return { abort, res };
}

/** Resolves true once the stream has ended (heartbeats and messages read past), false if still open at the bound. */
async function endsWithin(res: Response | ReturnType<typeof sseReader>, ms = CLOSED_WITHIN_MS): Promise<boolean> {
  const stream = res instanceof Response ? sseReader(res) : res;
  const deadline = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), ms)));
  try {
    while (Date.now() < deadline) {
      const next = await Promise.race([stream.next(), expired]);
      if (next === null) return true;
      if (next === 'open') return false;
    }
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** An announcement the open stream must hear: proves it is still live. */
async function hearsItsChange(res: Response, ownerId: string, teamId: string): Promise<void> {
  const stream = sseReader(res);
  expect((await stream.next())?.data).toEqual({ teamIds: null });
  pushBus().emit('accountTeams', { ownerId, teamId });
  expect((await stream.next())?.data).toEqual({ teamIds: [teamId] });
}

describe('revocation ends open event streams', () => {
  it("a revoked token's streams close at once and free their slots; the account's other token and another account keep theirs", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const stolen = await createApiToken(alice.id, 'stolen');
    const asStolen = { authorization: `Bearer ${stolen.token}` };
    const list = openList(asStolen);
    const teamAbort = new AbortController();
    const teamRes = teamEventsRoute(requestWithSignal(`http://localhost/api/v1/teams/${team.id}/events`, asStolen, teamAbort.signal), params({ id: team.id }));
    const kept = openList(alice.auth);
    const bobs = openList(bob.auth);
    const [listRes, teamStream, keptRes, bobRes] = await Promise.all([list.res, teamRes, kept.res, bobs.res]);
    expect([listRes.status, teamStream.status, keptRes.status, bobRes.status]).toEqual([200, 200, 200, 200]);
    expect(openStreamCount(alice.id)).toBe(3);

    await revokeApiToken(alice.id, stolen.info.id);
    expect(await endsWithin(listRes), 'teams-list stream of the revoked token').toBe(true);
    expect(await endsWithin(teamStream), 'team stream of the revoked token').toBe(true);
    expect(openStreamCount(alice.id)).toBe(1);
    await hearsItsChange(keptRes, alice.id, team.id);
    expect(openStreamCount(bob.id)).toBe(1);
    kept.abort.abort();
    bobs.abort.abort();
  });

  it('sign out everywhere closes every stream of the account, conversation streams too', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const abort = new AbortController();
    const conv = await conversationEventsRoute(
      requestWithSignal(`http://localhost/api/v1/conversations/${conversation.id}/events`, alice.auth, abort.signal),
      params({ id: conversation.id }),
    );
    const list = await openList(alice.auth).res;
    expect([conv.status, list.status]).toEqual([200, 200]);
    await signOutEverywhere(alice.id);
    expect(await endsWithin(conv)).toBe(true);
    expect(await endsWithin(list)).toBe(true);
    expect(openStreamCount(alice.id)).toBe(0);
  });

  it("a password change closes the streams of the sessions it ended; another account's stream stays", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(bob.id);
    const cookie = await signInOverHttp({ email: alice.email, password: PASSWORD });
    const bySession = await openList({ cookie }).res;
    const bobs = openList(bob.auth);
    const bobRes = await bobs.res;
    expect([bySession.status, bobRes.status]).toEqual([200, 200]);
    const account = (await findUserById(alice.id))!;
    await changePassword(
      { user: { id: alice.id, email: alice.email, name: alice.name }, sessionVersion: account.sessionVersion },
      { currentPassword: PASSWORD, newPassword: 'a whole new passphrase' },
      '127.0.0.1',
    );
    expect(await endsWithin(bySession)).toBe(true);
    await hearsItsChange(bobRes, bob.id, team.id);
    bobs.abort.abort();
  });

  it("disabling an account closes its streams (the admin's own stay)", async () => {
    const admin = await makeUser('admin');
    const alice = await makeUser('alice');
    const { team } = await makeTeam(admin.id);
    const aliceList = await openList(alice.auth).res;
    const adminList = openList(admin.auth);
    const adminRes = await adminList.res;
    await setAccountDisabled(admin.id, alice.id, true);
    expect(await endsWithin(aliceList)).toBe(true);
    expect(openStreamCount(alice.id)).toBe(0);
    await hearsItsChange(adminRes, admin.id, team.id);
    adminList.abort.abort();
  });

  it('a revocation no signal announced (written by another process) ends the stream at its next heartbeat', async () => {
    const alice = await makeUser('alice');
    const abort = new AbortController();
    const req = requestWithSignal('http://localhost/api/v1/teams/events', alice.auth, abort.signal);
    const res = await teamListEventStream({ accountId: alice.id, signal: abort.signal, request: req, signedIn: stillSignedIn(req, alice.id), heartbeatMs: 50 });
    const stream = sseReader(res);
    expect((await stream.next())?.data).toEqual({ teamIds: null });
    expect(await stream.next()).toEqual({ comment: 'heartbeat' });
    // Only the row changes, as another process's revocation would look here if its NOTIFY were lost.
    await writeTx(async (tx) => {
      await tx.update(schema.apiTokens).set({ revokedAt: new Date() }).where(eq(schema.apiTokens.userId, alice.id));
    });
    expect(await endsWithin(stream, 2_000)).toBe(true);
    expect(openStreamCount(alice.id)).toBe(0);
  });
});
