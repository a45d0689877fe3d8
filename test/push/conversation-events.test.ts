import { requestWithSignal } from './request-with-signal';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as eventsRoute } from '@/app/api/v1/conversations/[id]/events/route';
import type { ConversationPush } from '@/server/push/conversation-stream';
import { conversationListenerCount } from '@/server/push/bus';
import { closeAllStreams, openStreamCount } from '@/server/push/streams';
import { conversationWith, send } from '../agents/helpers';
import { makeUser } from '../support/users';
import { sseReader } from './sse';

const BASE = 'http://localhost/api/v1';
type TestUser = Awaited<ReturnType<typeof makeUser>>;

function open(user: TestUser, id: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = eventsRoute(requestWithSignal(`${BASE}/conversations/${id}/events`, { ...user.auth, ...headers }, abort.signal), {
    params: Promise.resolve({ id }),
  });
  return { abort, res };
}

afterEach(() => closeAllStreams());

describe('conversation event stream', () => {
  it('announces a run (start, events, finish) with rising ids, and resumes from Last-Event-ID', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const { abort, res } = open(alice, conversation.id);
    const r = await res;
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const stream = sseReader(r);
    const first = await stream.next();
    expect(first).toMatchObject({ event: 'conversation', data: { conversationId: conversation.id, runIds: null } });

    const run = await send(alice.id, conversation.id, 'hello');
    const change = await stream.until((m) => (m.data as ConversationPush | undefined)?.runIds?.includes(run.id) ?? false);
    expect(Number(change.id)).toBeGreaterThan(Number(first!.id));

    // A stream opened after the run finished starts at the newest id: a client that saw it missed nothing.
    const { abort: otherAbort, res: otherRes } = open(alice, conversation.id);
    const lastId = Number((await sseReader(await otherRes).next())!.id);
    expect(lastId).toBeGreaterThanOrEqual(Number(change.id));
    otherAbort.abort();
    abort.abort();
    expect(await stream.until(() => false).catch((e: Error) => e.message)).toBe('stream ended before the expected message');

    const current = sseReader(await open(alice, conversation.id, { 'last-event-id': String(lastId) }).res);
    expect((await current.next())?.data).toEqual({ conversationId: conversation.id, runIds: [] });
    const behind = sseReader(await open(alice, conversation.id, { 'last-event-id': String(Number(first!.id)) }).res);
    expect((await behind.next())?.data).toEqual({ conversationId: conversation.id, runIds: null });
  });

  it('answers 404 to another owner, exactly like a missing conversation, and opens no stream', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(alice.id);
    const listeners = conversationListenerCount();
    const foreign = await open(bob, conversation.id).res;
    const missing = await open(bob, 'no-such-conversation').res;
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await missing.json());
    expect(conversationListenerCount()).toBe(listeners);
    expect(openStreamCount(bob.id)).toBe(0);
  });

  it('leaves no listener behind when the client goes away', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const listeners = conversationListenerCount();
    const { abort, res } = open(alice, conversation.id);
    const stream = sseReader(await res);
    await stream.next();
    expect(conversationListenerCount()).toBe(listeners + 1);
    abort.abort();
    expect(await stream.next()).toBeNull();
    expect(conversationListenerCount()).toBe(listeners);
    expect(openStreamCount(alice.id)).toBe(0);
  });
});
