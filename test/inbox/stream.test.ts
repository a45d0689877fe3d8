import { requestWithSignal } from '../push/request-with-signal';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as inboxEventsRoute } from '@/app/api/v1/inbox/events/route';
import { runEvents } from '@/server/agents/run-events';
import { pushBus } from '@/server/push/bus';
import { closeAllStreams } from '@/server/push/streams';
import { subscribeInboxChanges } from '@/server/inbox/stream';
import { conversationWith, send } from '../agents/helpers';
import { sseReader } from '../push/sse';
import { makeUser } from '../support/users';

afterEach(() => closeAllStreams());

describe('the inbox stream', () => {
  it('says re-read first, and again when one of the owner’s chats stops on an approval', async () => {
    const alice = await makeUser('alice');
    const abort = new AbortController();
    const res = await inboxEventsRoute(requestWithSignal('http://localhost/api/v1/inbox/events', alice.auth, abort.signal), { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const stream = sseReader(res);
    expect(await stream.next()).toMatchObject({ event: 'inbox', data: { reread: true } });
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    expect(await stream.until((m) => m.event === 'inbox')).toMatchObject({ data: { reread: true } });
    abort.abort();
  });

  it("hears the owner's runs and teams only, never another account's", () => {
    const heard: string[] = [];
    const off = subscribeInboxChanges('alice', () => heard.push('alice'));
    const run = { runId: 'r', conversationId: 'c', status: 'interrupted' as const };
    // What must not happen: alice's inbox moved by bob's run or team.
    runEvents().emit('run:finished', { ...run, ownerId: 'bob' });
    pushBus().emit('accountTeams', { ownerId: 'bob', teamId: 't' });
    expect(heard).toEqual([]);
    runEvents().emit('run:finished', { ...run, ownerId: 'alice' });
    runEvents().emit('run:started', { ...run, ownerId: 'alice', status: 'running' });
    pushBus().emit('accountTeams', { ownerId: 'alice', teamId: 't' });
    expect(heard).toEqual(['alice', 'alice', 'alice']);
    off();
    runEvents().emit('run:finished', { ...run, ownerId: 'alice' });
    expect(heard).toHaveLength(3);
  });

  it('without a session → 401, and no stream', async () => {
    const res = await inboxEventsRoute(new Request('http://localhost/api/v1/inbox/events'), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
  });
});
