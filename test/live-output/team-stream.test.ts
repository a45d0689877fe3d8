import { afterEach, describe, expect, it } from 'vitest';
import { GET as conversationEventsRoute } from '@/app/api/v1/conversations/[id]/events/route';
import { GET as teamEventsRoute } from '@/app/api/v1/teams/[id]/events/route';
import { writeTx } from '@/server/db';
import { closeAllStreams } from '@/server/push/streams';
import type { TeamOutputPush } from '@/server/push/team-stream';
import { sendRequest } from '@/server/teams/requests';
import { touchTeam } from '@/server/teams/revision';
import { requestWithSignal } from '../push/request-with-signal';
import { sseReader, type SseMessage } from '../push/sse';
import { job, settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

withScheduler();
afterEach(async () => closeAllStreams());

type TestUser = Awaited<ReturnType<typeof makeUser>>;
const BASE = 'http://localhost/api/v1';
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

async function openTeam(user: TestUser, teamId: string) {
  const res = await teamEventsRoute(requestWithSignal(`${BASE}/teams/${teamId}/events`, user.auth, new AbortController().signal), ctx(teamId));
  expect(res.status).toBe(200);
  return sseReader(res);
}

const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu';
const isOutput = (jobId: string) => (m: SseMessage) => m.event === 'output' && (m.data as TeamOutputPush).jobId === jobId;

describe('live output on the team stream (owner-scoped, ephemeral)', () => {
  it("reaches the owner's viewers (also one who connects mid-run) and never another owner's stream", { timeout: 30_000 }, async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const { team: bobTeam } = await makeTeam(bob.id);
    const aliceStream = await openTeam(alice, team.id);
    const bobStream = await openTeam(bob, bobTeam.id);
    expect((await aliceStream.next())?.event).toBe('team');
    expect((await bobStream.next())?.event).toBe('team');

    const member = team.members[0]!;
    const { jobs } = await sendRequest(alice.id, team.id, { memberIds: [member.id], text: `/pace 80\n/reply ${WORDS}`, draftKey: 'live-1' });
    const jobId = jobs[0]!.id;
    const first = await aliceStream.until(isOutput(jobId), 100);
    // No id: live output does not move Last-Event-ID (it is not replayed; a new connection gets the text so far).
    expect(first.id).toBeUndefined();
    const data = first.data as TeamOutputPush;
    expect(data).toMatchObject({ teamId: team.id, jobId, done: false, truncated: false });
    expect(WORDS.startsWith(data.text)).toBe(true);
    expect((await job(jobId)).status).toBe('running');

    // A viewer who opens the workspace now: the revision, then the text written so far.
    const late = await openTeam(alice, team.id);
    expect((await late.next())?.event).toBe('team');
    const caughtUp = await late.next();
    expect(caughtUp?.event).toBe('output');
    expect((caughtUp?.data as TeamOutputPush).jobId).toBe(jobId);
    expect(WORDS.startsWith((caughtUp?.data as TeamOutputPush).text)).toBe(true);
    expect((caughtUp?.data as TeamOutputPush).text.length).toBeGreaterThan(0);

    const end = await aliceStream.until((m) => isOutput(jobId)(m) && (m.data as TeamOutputPush).done, 200);
    expect((end.data as TeamOutputPush).text).toBe(WORDS);
    expect((await settled(jobId)).status).toBe('completed');

    // Bob's stream: a change of his own team is the next thing it says; alice's output never came before it.
    const revision = await writeTx((tx) => touchTeam(tx, bobTeam.id, []));
    const seen: SseMessage[] = [];
    await bobStream.until((m) => {
      seen.push(m);
      return m.event === 'team' && (m.data as { revision: number }).revision === revision;
    }, 20);
    expect(seen.filter((m) => m.event === 'output')).toEqual([]);
  });

  it("reaches the member's conversation stream too, with the run it belongs to", { timeout: 30_000 }, async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const conversationId = member.conversationId!;
    const res = await conversationEventsRoute(
      requestWithSignal(`${BASE}/conversations/${conversationId}/events`, alice.auth, new AbortController().signal),
      ctx(conversationId),
    );
    expect(res.status).toBe(200);
    const stream = sseReader(res);
    expect((await stream.next())?.event).toBe('conversation');
    const { jobs } = await sendRequest(alice.id, team.id, { memberIds: [member.id], text: `/pace 20\n/reply ${WORDS}`, draftKey: 'live-2' });
    const end = await stream.until((m) => m.event === 'output' && (m.data as { done: boolean }).done, 200);
    expect(end.id).toBeUndefined();
    expect(end.data).toMatchObject({ conversationId, text: WORDS, truncated: false });
    expect((end.data as { runId: string }).runId).toBe((await settled(jobs[0]!.id)).runId);
  });
});
