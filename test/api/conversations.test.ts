import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as listRoute, POST as createRoute } from '@/app/api/v1/conversations/route';
import { GET as detailRoute } from '@/app/api/v1/conversations/[id]/route';
import { POST as messageRoute } from '@/app/api/v1/conversations/[id]/messages/route';
import { POST as resumeRoute } from '@/app/api/v1/conversations/[id]/resume/route';
import { GET as runRoute } from '@/app/api/v1/runs/[id]/route';
import { POST as cancelRoute } from '@/app/api/v1/runs/[id]/cancel/route';
import { LIMITS } from '@/lib/limits';
import type { Conversation, ConversationDetail, ConversationList, Run, RunResponse } from '@/lib/types/conversation';
import { wait } from '@/server/agents/runs';
import { statement } from '@/server/db/statement';
import { makeAgent } from '../agents/helpers';
import { makeUser } from '../support/users';

type TestUser = Awaited<ReturnType<typeof makeUser>>;
type ErrorBody = { error: { code: string; message: string; fields?: Record<string, string> } };

const BASE = 'http://localhost/api/v1';

function request(url: string, method: string, user: TestUser | null, body?: unknown, headers: Record<string, string> = {}): Request {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Request(url, { method, headers: { 'content-type': 'application/json', ...(user ? user.auth : {}), ...headers }, body: payload });
}
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const noCtx = undefined as never;

const list = (u: TestUser | null) => listRoute(request(`${BASE}/conversations`, 'GET', u), noCtx);
const create = (u: TestUser | null, body: unknown) => createRoute(request(`${BASE}/conversations`, 'POST', u, body), noCtx);
const detail = (u: TestUser | null, id: string) => detailRoute(request(`${BASE}/conversations/${id}`, 'GET', u), ctx(id));
const message = (u: TestUser | null, id: string, body: unknown) => messageRoute(request(`${BASE}/conversations/${id}/messages`, 'POST', u, body), ctx(id));
const resumeReq = (u: TestUser | null, id: string, body: unknown) => resumeRoute(request(`${BASE}/conversations/${id}/resume`, 'POST', u, body), ctx(id));
const getRun = (u: TestUser | null, id: string) => runRoute(request(`${BASE}/runs/${id}`, 'GET', u), ctx(id));
const cancelRun = (u: TestUser | null, id: string) => cancelRoute(request(`${BASE}/runs/${id}/cancel`, 'POST', u), ctx(id));

async function errorOf(res: Response, status: number): Promise<ErrorBody['error']> {
  expect(res.status).toBe(status);
  return ((await res.json()) as ErrorBody).error;
}

async function newConversation(user: TestUser, agent: Partial<Parameters<typeof makeAgent>[1]> = {}): Promise<Conversation> {
  const a = await makeAgent(user.id, agent);
  const res = await create(user, { agentId: a.id });
  expect(res.status).toBe(201);
  return (await res.json()) as Conversation;
}

async function sendAndWait(user: TestUser, conversationId: string, text: string): Promise<Run> {
  const res = await message(user, conversationId, { text });
  expect(res.status).toBe(202);
  const { run } = (await res.json()) as RunResponse;
  const row = await wait(run.id, 10_000);
  expect(row!.status).not.toMatch(/^(pending|running)$/);
  return ((await (await getRun(user, run.id)).json()) as RunResponse).run;
}

const runsOf = statement('select count(*) as n from runs where conversation_id = ?');
const runCount = async (conversationId: string) => Number((await runsOf.get<{ n: number }>(conversationId))!.n);

let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  alice = await makeUser('alice');
  bob = await makeUser('bob');
});

describe('conversations API: authentication and ownership', () => {
  it('answers 401 on every route without credentials or with a bad token', async () => {
    const conversation = await newConversation(alice);
    const run = await sendAndWait(alice, conversation.id, 'hi');
    const bad = { ...alice, auth: { authorization: 'Bearer ens_not_a_token' } };
    for (const who of [null, bad]) {
      for (const res of [
        await list(who),
        await create(who, { agentId: conversation.agentId }),
        await detail(who, conversation.id),
        await message(who, conversation.id, { text: 'x' }),
        await resumeReq(who, conversation.id, { value: { approved: true }, idempotencyKey: 'k' }),
        await getRun(who, run.id),
        await cancelRun(who, run.id),
      ]) {
        expect((await errorOf(res, 401)).code).toBe('unauthorized');
      }
    }
    expect(await runCount(conversation.id)).toBe(1);
  });

  it("answers 404 for another owner's agent, conversation and run — exactly like a missing id", async () => {
    const conversation = await newConversation(alice, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const run = await sendAndWait(alice, conversation.id, '/call calculator {"expression":"1+1"}');
    expect(run.status).toBe('interrupted');
    const missing = crypto.randomUUID();

    for (const id of [conversation.agentId!, missing]) {
      expect(await errorOf(await create(bob, { agentId: id }), 404)).toMatchObject({ code: 'not_found', message: 'Agent not found' });
    }
    for (const id of [conversation.id, missing]) {
      const errors = [
        await errorOf(await detail(bob, id), 404),
        await errorOf(await message(bob, id, { text: 'hello' }), 404),
        await errorOf(await resumeReq(bob, id, { value: { approved: true }, idempotencyKey: 'k1' }), 404),
      ];
      for (const e of errors) expect(e).toEqual({ code: 'not_found', message: 'Conversation not found' });
    }
    for (const id of [run.id, missing]) {
      expect(await errorOf(await getRun(bob, id), 404)).toEqual({ code: 'not_found', message: 'Run not found' });
      expect(await errorOf(await cancelRun(bob, id), 404)).toEqual({ code: 'not_found', message: 'Run not found' });
    }
    // Bob's invalid body on Alice's conversation is still a 404, not a hint via 422.
    expect((await errorOf(await message(bob, conversation.id, { nope: 1 }), 404)).code).toBe('not_found');

    const bobList = (await (await list(bob)).json()) as ConversationList;
    expect(bobList.conversations.map((c) => c.id)).not.toContain(conversation.id);
    // Nothing of Alice's moved.
    expect(await runCount(conversation.id)).toBe(1);
    const still = ((await (await getRun(alice, run.id)).json()) as RunResponse).run;
    expect(still).toEqual(run);
  });
});

describe('conversations API: create, list, read', () => {
  it('creates a conversation bound to the agent and lists the newest updated first', async () => {
    const carol = await makeUser('carol');
    const first = await newConversation(carol, { name: 'Planner' });
    expect(first).toEqual({
      id: expect.any(String),
      agentId: expect.any(String),
      agentName: 'Planner',
      title: '',
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const second = await newConversation(carol, { name: 'Writer' });
    let listed = (await (await list(carol)).json()) as ConversationList;
    expect(listed.conversations.map((c) => c.id)).toEqual([second.id, first.id]);

    await sendAndWait(carol, first.id, 'Draft the plan');
    listed = (await (await list(carol)).json()) as ConversationList;
    expect(listed.conversations.map((c) => c.id)).toEqual([first.id, second.id]);
    expect(listed.conversations[0]!.title).toBe('Draft the plan');
    expect(listed.conversations.map((c) => c.activity)).toEqual([null, null]);
  });

  it("lists what each conversation's run is doing: working, waiting for you, then nothing; never another owner's", async () => {
    const dana = await makeUser('dana');
    const erin = await makeUser('erin');
    const busy = await newConversation(dana, { name: 'Sleeper' });
    const gated = await newConversation(dana, { name: 'Gate', toolGroups: ['utility'], approvalTools: ['calculator'] });
    await newConversation(dana, { name: 'Idle' });
    const activityOf = async (user: TestUser) =>
      Object.fromEntries(((await (await list(user)).json()) as ConversationList).conversations.map((c) => [c.agentName, c.activity]));

    const { run: sleeping } = (await (await message(dana, busy.id, { text: '/sleep 5000' })).json()) as RunResponse;
    expect((await sendAndWait(dana, gated.id, '/call calculator {"expression":"7*6"}')).status).toBe('interrupted');
    expect(await activityOf(dana)).toEqual({ Sleeper: 'working', Gate: 'waiting_for_you', Idle: null });
    // What must not happen: another owner's running and waiting runs showing in their list, or theirs in this one.
    const theirs = await newConversation(erin, { name: 'Theirs' });
    const { run: theirRun } = (await (await message(erin, theirs.id, { text: '/sleep 5000' })).json()) as RunResponse;
    expect(await activityOf(erin)).toEqual({ Theirs: 'working' });
    expect(await activityOf(dana)).toEqual({ Sleeper: 'working', Gate: 'waiting_for_you', Idle: null });

    // Cancelled and answered: nothing under way, nothing waiting.
    expect((await cancelRun(dana, sleeping.id)).status).toBe(200);
    const answered = await resumeReq(dana, gated.id, { value: { approved: false }, idempotencyKey: crypto.randomUUID() });
    expect(answered.status).toBe(202);
    await wait(((await answered.json()) as RunResponse).run.id, 10_000);
    expect(await activityOf(dana)).toEqual({ Sleeper: null, Gate: null, Idle: null });
    expect((await cancelRun(erin, theirRun.id)).status).toBe(200);
    expect(await activityOf(erin)).toEqual({ Theirs: null });
  });

  it('reads messages (with tool calls and results) and the newest run', async () => {
    const conversation = await newConversation(alice, { name: 'Calc', toolGroups: ['utility'] });
    const empty = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
    expect(empty).toEqual({ conversation, messages: [], run: null, teamRequest: null, team: null, batch: null });

    const run = await sendAndWait(alice, conversation.id, '/call calculator {"expression":"2*21"}');
    const res = await detail(alice, conversation.id);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ConversationDetail;
    expect(body.run).toEqual(run);
    expect(body.teamRequest).toBeNull();
    const person = { contentKind: 'person_message', producer: { type: 'person' } };
    const agent = { contentKind: 'assistant', producer: { type: 'agent' } };
    expect(body.messages).toEqual([
      { id: `run:${run.id}`, role: 'user', text: '/call calculator {"expression":"2*21"}', meta: { runId: run.id }, provenance: person },
      { id: expect.any(String), role: 'assistant', text: '', toolCalls: [{ id: expect.any(String), name: 'calculator', args: { expression: '2*21' } }], provenance: agent },
      {
        id: expect.any(String),
        role: 'tool',
        text: '42',
        toolCallId: body.messages[1]!.toolCalls![0]!.id,
        toolName: 'calculator',
        provenance: { contentKind: 'tool_result', producer: { type: 'framework' } },
      },
      { id: expect.any(String), role: 'assistant', text: 'Calc: done\n[calculator] 42', provenance: agent },
    ]);
  });

  it('refuses bad create bodies: 422 naming fields, 400 malformed JSON, 413 oversized', async () => {
    expect((await errorOf(await create(alice, {}), 422)).fields).toHaveProperty('agentId');
    expect((await errorOf(await create(alice, { agentId: 7 }), 422)).fields).toHaveProperty('agentId');
    const agent = await makeAgent(alice.id);
    expect((await errorOf(await create(alice, { agentId: agent.id, title: 'x' }), 422)).fields).toEqual({ title: 'Unknown field' });
    expect((await errorOf(await create(alice, '{"agentId":'), 400)).code).toBe('invalid_json');
    expect((await errorOf(await create(alice, JSON.stringify({ agentId: 'x'.repeat(LIMITS.requestBodyBytes) })), 413)).code).toBe('payload_too_large');
  });
});

describe('conversations API: messages', () => {
  it('202 with a pending run; the same idempotency key answers 200 with the same run', async () => {
    const conversation = await newConversation(alice, { name: 'Echo' });
    const res = await message(alice, conversation.id, { text: 'once', idempotencyKey: 'msg-1' });
    expect(res.status).toBe(202);
    const { run } = (await res.json()) as RunResponse;
    expect(run).toEqual({
      id: expect.any(String),
      conversationId: conversation.id,
      kind: 'start',
      status: 'pending',
      model: 'scripted',
      error: null,
      stopReason: null,
      interrupt: null,
      inputTokens: 0,
      outputTokens: 0,
      modelCalls: 0,
      unreportedCalls: 0,
      // Priced when it finishes (ADR 048): a pending run has no cost yet, and unknown is never 0.
      cost: null,
      fingerprint: null,
      assembly: null,
      assemblyChanges: null,
      createdAt: expect.any(String),
      startedAt: null,
      finishedAt: null,
    });
    const again = await message(alice, conversation.id, { text: 'once', idempotencyKey: 'msg-1' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as RunResponse).run.id).toBe(run.id);
    await wait(run.id, 10_000);
    expect(await runCount(conversation.id)).toBe(1);
    const body = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
    expect(body.messages.map((m) => m.text)).toEqual(['once', 'Echo received: once']);
  });

  it('409 conversation_busy while a run is active; cancel through the API frees it', async () => {
    const conversation = await newConversation(alice);
    const res = await message(alice, conversation.id, { text: '/sleep 5000' });
    const { run } = (await res.json()) as RunResponse;
    expect((await errorOf(await message(alice, conversation.id, { text: 'next' }), 409)).code).toBe('conversation_busy');

    const cancelled = await cancelRun(alice, run.id);
    expect(cancelled.status).toBe(200);
    const body = ((await cancelled.json()) as RunResponse).run;
    expect(body).toMatchObject({ id: run.id, status: 'cancelled', finishedAt: expect.any(String) });
    // Idempotent: a finished run comes back unchanged.
    expect(((await (await cancelRun(alice, run.id)).json()) as RunResponse).run).toEqual(body);
    expect(((await (await getRun(alice, run.id)).json()) as RunResponse).run).toEqual(body);

    expect((await sendAndWait(alice, conversation.id, 'next')).status).toBe('success');
  });

  it('422 naming the field: missing, empty, wrong type, unknown field, lone surrogate', async () => {
    const conversation = await newConversation(alice);
    expect((await errorOf(await message(alice, conversation.id, {}), 422)).fields).toHaveProperty('text');
    expect((await errorOf(await message(alice, conversation.id, { text: '' }), 422)).fields).toHaveProperty('text');
    expect((await errorOf(await message(alice, conversation.id, { text: '   ' }), 422)).fields).toEqual({ text: 'Required' });
    expect((await errorOf(await message(alice, conversation.id, { text: 5 }), 422)).fields).toHaveProperty('text');
    expect((await errorOf(await message(alice, conversation.id, { text: 'hi', role: 'system' }), 422)).fields).toEqual({ role: 'Unknown field' });
    expect((await errorOf(await message(alice, conversation.id, { text: 'hi', idempotencyKey: '' }), 422)).fields).toHaveProperty('idempotencyKey');
    const lone = await messageRoute(
      new Request(`${BASE}/conversations/${conversation.id}/messages`, {
        method: 'POST',
        headers: { ...alice.auth, 'content-type': 'application/json' },
        body: '{"text":"bad \\ud800 half"}',
      }),
      ctx(conversation.id),
    );
    expect((await errorOf(lone, 422)).code).toBe('validation_error');
    expect((await errorOf(await message(alice, conversation.id, '{"text": "unterminated'), 400)).code).toBe('invalid_json');
    expect((await errorOf(await message(alice, conversation.id, { text: 'x'.repeat(LIMITS.requestBodyBytes) }), 413)).code).toBe('payload_too_large');
    expect(await runCount(conversation.id)).toBe(0);
  });

  it('accepts text at exactly 4,000 characters / 8,000 bytes and refuses one past, in ASCII, CJK and emoji', async () => {
    const cases: { label: string; ok: string; tooLong: string; field: RegExp }[] = [
      { label: 'ASCII chars', ok: 'a'.repeat(4_000), tooLong: 'a'.repeat(4_001), field: /at most 4,000 characters/ },
      { label: 'ASCII bytes', ok: 'a'.repeat(4_000), tooLong: 'a'.repeat(8_001), field: /at most 4,000 characters/ },
      { label: 'CJK chars', ok: '字'.repeat(2_666) + 'ab', tooLong: '字'.repeat(4_001), field: /at most 4,000 characters/ },
      { label: 'CJK bytes', ok: '字'.repeat(2_666) + 'ab', tooLong: '字'.repeat(2_666) + 'abc', field: /at most 8,000 bytes \(now 8,001\)/ },
      { label: 'emoji bytes', ok: '😀'.repeat(2_000), tooLong: '😀'.repeat(2_000) + 'a', field: /at most 8,000 bytes \(now 8,001\)/ },
      { label: 'emoji chars', ok: '😀'.repeat(2_000), tooLong: '😀'.repeat(4_001), field: /at most 4,000 characters/ },
    ];
    expect(new TextEncoder().encode('字'.repeat(2_666) + 'ab').length).toBe(8_000);
    for (const c of cases) {
      const conversation = await newConversation(alice);
      const refused = await errorOf(await message(alice, conversation.id, { text: c.tooLong }), 422);
      expect(refused.fields?.text, c.label).toMatch(c.field);
      expect(await runCount(conversation.id)).toBe(0);
      const accepted = await message(alice, conversation.id, { text: c.ok });
      expect(accepted.status, c.label).toBe(202);
      await wait(((await accepted.json()) as RunResponse).run.id, 10_000);
      const body = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
      expect(body.messages[0]!.text, c.label).toBe(c.ok);
    }
  });
});

describe('conversations API: resume', () => {
  it('answers an approval interrupt; repeated key → same run; 409 when nothing waits', async () => {
    const conversation = await newConversation(alice, { name: 'Gate', toolGroups: ['utility'], approvalTools: ['calculator'] });
    expect((await errorOf(await resumeReq(alice, conversation.id, { value: { approved: true }, idempotencyKey: 'r0' }), 409)).code).toBe('not_waiting');

    const waiting = await sendAndWait(alice, conversation.id, '/call calculator {"expression":"7*6"}');
    expect(waiting).toMatchObject({ status: 'interrupted', interrupt: { type: 'approval', tool: 'calculator', args: { expression: '7*6' } } });
    const shown = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
    expect(shown.run).toEqual(waiting);

    expect((await errorOf(await resumeReq(alice, conversation.id, { value: { approved: true } }), 422)).fields).toHaveProperty('idempotencyKey');
    expect((await errorOf(await resumeReq(alice, conversation.id, { idempotencyKey: 'r1' }), 422)).fields).toHaveProperty('value');
    expect((await errorOf(await resumeReq(alice, conversation.id, { value: { approved: 'yes' }, idempotencyKey: 'r1' }), 422)).fields).toHaveProperty('value.approved');
    expect((await errorOf(await resumeReq(alice, conversation.id, { value: { approved: true, note: 'n'.repeat(8_001) }, idempotencyKey: 'r1' }), 422)).fields).toHaveProperty('value');

    const res = await resumeReq(alice, conversation.id, { value: { approved: true, note: 'go ahead' }, idempotencyKey: 'r1' });
    expect(res.status).toBe(202);
    const { run } = (await res.json()) as RunResponse;
    expect(run).toMatchObject({ kind: 'resume', conversationId: conversation.id });
    const repeat = await resumeReq(alice, conversation.id, { value: { approved: true }, idempotencyKey: 'r1' });
    expect(repeat.status).toBe(200);
    expect(((await repeat.json()) as RunResponse).run.id).toBe(run.id);

    await wait(run.id, 10_000);
    const after = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
    expect(after.run).toMatchObject({ id: run.id, status: 'success', interrupt: null });
    expect(after.messages.map((m) => m.text).slice(-2)).toEqual(['42', 'Gate: done\n[calculator] 42']);
    expect((await errorOf(await resumeReq(alice, conversation.id, { value: { approved: true }, idempotencyKey: 'r2' }), 409)).code).toBe('not_waiting');
  });

  it('a new message while an approval waits is refused (409 interrupt_pending) as an @mention is; after a decline it is a new turn', async () => {
    const conversation = await newConversation(alice, { name: 'Gatekeeper', toolGroups: ['utility'], approvalTools: ['calculator'] });
    const waiting = await sendAndWait(alice, conversation.id, '/call calculator {"expression":"7*6"}');
    expect(waiting.status).toBe('interrupted');

    // Must not happen: the message accepted as a new turn, leaving the call the person was asked about unanswered.
    const refused = await errorOf(await message(alice, conversation.id, { text: 'never mind, tell me a joke' }), 409);
    expect(refused).toEqual({ code: 'interrupt_pending', message: 'Approve or decline the pending tool call in this conversation first' });
    expect(await runCount(conversation.id)).toBe(1);
    expect(((await (await detail(alice, conversation.id)).json()) as ConversationDetail).run).toEqual(waiting);

    const declined = await resumeReq(alice, conversation.id, { value: { approved: false }, idempotencyKey: 'decline-1' });
    expect(declined.status).toBe(202);
    await wait(((await declined.json()) as RunResponse).run.id, 10_000);
    const next = await sendAndWait(alice, conversation.id, 'tell me a joke');
    expect(next.status).toBe('success');
    // Every tool call in the history has its result (the declined one's says so), as providers require.
    const after = (await (await detail(alice, conversation.id)).json()) as ConversationDetail;
    const calls = after.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
    const results = after.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
    expect(calls).toHaveLength(1);
    expect(results).toEqual(calls);
  });
});
