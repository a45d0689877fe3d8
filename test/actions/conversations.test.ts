import { scope, signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/conversations/actions');
const { GET: runRoute } = await import('@/app/api/v1/runs/[id]/route');
const { GET: conversationRoute } = await import('@/app/api/v1/conversations/[id]/route');
const { LIMITS } = await import('@/lib/limits');
const { wait } = await import('@/server/agents/runs');
const { getDb, schema } = await import('@/server/db');
const { makeAgent } = await import('../agents/helpers');
const { makeUser } = await import('../support/users');
const { call, makeAgents, makeTeam } = await import('../support/teams');
const { NOT_FOUND, fieldError, rowsOf } = await import('./support');

type User = Awaited<ReturnType<typeof makeUser>>;
type Result<T> = { ok: true; data: T } | { ok: false; error: unknown };
const conversationRows = () => rowsOf(schema.conversations, schema.runs, schema.jobs);
const runsOf = (conversationId: string) => getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId));
function dataOf<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.data;
}

/** A conversation of `user` with a fresh agent (scripted model), created through the action. */
async function conversationFor(user: User, agent: Parameters<typeof makeAgent>[1] = {}) {
  signIn(user);
  return dataOf(await actions.createConversationAction({ agentId: (await makeAgent(user.id, agent)).id }));
}

/** Send through the action and wait until the run has settled. */
async function sendAndSettle(conversationId: string, text: string, idempotencyKey: string = crypto.randomUUID()) {
  const { run } = dataOf(await actions.sendMessageAction(conversationId, { text, idempotencyKey }));
  const settled = await wait(run.id, 10_000);
  expect(settled!.status).not.toMatch(/^(pending|running)$/);
  return { run, settled: settled! };
}

describe('conversation actions, for the owner', () => {
  it('createConversationAction binds a conversation to the agent, as the API does', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id, {});
    signIn(alice);
    const conversation = dataOf(await actions.createConversationAction({ agentId: agent.id }));
    expect(conversation).toMatchObject({ agentId: agent.id });
    const got = await call(conversationRoute, { headers: alice.auth, params: { id: conversation.id } });
    expect(got.body.conversation).toEqual(JSON.parse(JSON.stringify(conversation)));
    expect(await actions.createConversationAction({ agentId: agent.id, extra: true })).toMatchObject(fieldError('extra', 'Unknown field'));
  });

  it('sendMessageAction starts a run; the same idempotency key answers that run again, no second one', async () => {
    const alice = await makeUser('alice');
    const conversation = await conversationFor(alice);
    const { run, settled } = await sendAndSettle(conversation.id, '/reply hello there', 'key-1');
    expect(settled.status).toBe('success');
    const viaApi = await call(runRoute, { headers: alice.auth, params: { id: run.id } });
    expect(viaApi.body.run).toMatchObject({ id: run.id, conversationId: conversation.id, status: 'success' });
    expect(dataOf(await actions.sendMessageAction(conversation.id, { text: '/reply hello there', idempotencyKey: 'key-1' })).run.id).toBe(run.id);
    expect(await runsOf(conversation.id)).toHaveLength(1);
  });

  it('bounds the message at 4,000 characters and 8,000 bytes: at the limit it runs, one past is a field error', async () => {
    const alice = await makeUser('alice');
    const conversation = await conversationFor(alice);
    const max = LIMITS.message.maxChars;
    const before = await conversationRows();
    expect(await actions.sendMessageAction(conversation.id, { text: 'a'.repeat(max + 1), idempotencyKey: 'k' })).toMatchObject(fieldError('text'));
    expect(await actions.sendMessageAction(conversation.id, { text: '研'.repeat(2667), idempotencyKey: 'k' })).toMatchObject(fieldError('text'));
    expect(await actions.sendMessageAction(conversation.id, { text: 'hi', idempotencyKey: 'k'.repeat(201) })).toMatchObject(fieldError('idempotencyKey'));
    expect(await conversationRows()).toBe(before);
    await sendAndSettle(conversation.id, 'a'.repeat(max));
    await sendAndSettle(conversation.id, '研'.repeat(2666) + 'ab');
    expect(await runsOf(conversation.id)).toHaveLength(2);
  });

  it('resumeConversationAction answers an approval; cancelRunAction returns a finished run unchanged', async () => {
    const alice = await makeUser('alice');
    const conversation = await conversationFor(alice, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const { run, settled } = await sendAndSettle(conversation.id, '/call calculator {"expression":"1+1"}');
    expect(settled.status).toBe('interrupted');
    expect(await actions.resumeConversationAction(conversation.id, { value: { approved: true, note: 'a'.repeat(LIMITS.answer.maxChars + 1) }, idempotencyKey: 'r1' })).toMatchObject(
      fieldError('value.note'),
    );
    const resumed = dataOf(await actions.resumeConversationAction(conversation.id, { value: { approved: true }, idempotencyKey: 'r1' })).run;
    expect(resumed.id).not.toBe(run.id);
    expect((await wait(resumed.id, 10_000))!.status).toBe('success');
    expect(dataOf(await actions.cancelRunAction(resumed.id)).run).toMatchObject({ id: resumed.id, status: 'success' });
  });

  it('cancelRunAction stops a working run', async () => {
    const alice = await makeUser('alice');
    const conversation = await conversationFor(alice);
    const { run } = dataOf(await actions.sendMessageAction(conversation.id, { text: '/sleep 5000\n/reply slow', idempotencyKey: 'slow' }));
    const cancelled = dataOf(await actions.cancelRunAction(run.id)).run;
    expect(cancelled).toMatchObject({ id: run.id, status: 'cancelled' });
    expect((await wait(run.id, 10_000))!.status).toBe('cancelled');
  });

  it('sendMentionsAction queues one request per member; the same messageKey answers the same jobs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    const [solo] = await makeAgents(alice.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    signIn(alice);
    const conversation = dataOf(await actions.createConversationAction({ agentId: solo!.id }));
    const input = { memberIds: team.members.map((m) => m.id), text: 'look into it', messageKey: 'msg-1' };
    const sent = dataOf(await actions.sendMentionsAction(conversation.id, input));
    expect(sent.jobs.map((j) => j.memberId)).toEqual(input.memberIds);
    const rows = await getDb().select().from(schema.jobs).where(eq(schema.jobs.sourceConversationId, conversation.id));
    expect(rows.map((j) => [j.kind, j.status, j.text])).toEqual(input.memberIds.map(() => ['request', 'queued', 'look into it']));
    expect(dataOf(await actions.sendMentionsAction(conversation.id, input)).jobs).toEqual(sent.jobs);
    expect(await actions.sendMentionsAction(conversation.id, { ...input, messageKey: 'm2', text: 'a'.repeat(LIMITS.task.maxChars + 1) })).toMatchObject(fieldError('text'));
    expect(await getDb().select().from(schema.jobs).where(eq(schema.jobs.sourceConversationId, conversation.id))).toHaveLength(2);
  });
});

describe('deleteConversationAction', () => {
  it('deletes the owner’s conversation as the API does; a second call, a team member’s and a junk id are refused', async () => {
    const alice = await makeUser('alice');
    const conversation = await conversationFor(alice);
    await sendAndSettle(conversation.id, '/reply done');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    signIn(alice);
    expect(await actions.deleteConversationAction(conversation.id)).toEqual({ ok: true, data: null });
    expect((await call(conversationRoute, { headers: alice.auth, params: { id: conversation.id } })).status).toBe(404);
    expect(await runsOf(conversation.id)).toEqual([]);
    expect(await actions.deleteConversationAction(conversation.id)).toMatchObject(NOT_FOUND);
    // What must not happen: a member's conversation deleted from under its team, or a non-string id reaching SQL.
    const before = await conversationRows();
    expect(await actions.deleteConversationAction(team.members[0]!.conversationId)).toMatchObject({ ok: false, error: { code: 'conversation_in_team' } });
    expect(await actions.deleteConversationAction({ id: conversation.id })).toMatchObject(NOT_FOUND);
    expect(await conversationRows()).toBe(before);
  });
});

describe('conversation actions, for anyone else', () => {
  type Action = (...args: unknown[]) => Promise<unknown>;
  async function fixtures() {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    const conversation = await conversationFor(alice);
    const { run } = await sendAndSettle(conversation.id, '/reply done');
    signIn(bob);
    return { alice, bob, team, conversation, run };
  }
  const argsFor = (f: Awaited<ReturnType<typeof fixtures>>): Record<string, unknown[]> => ({
    createConversationAction: [{ agentId: f.conversation.agentId }],
    sendMessageAction: [f.conversation.id, { text: 'hello', idempotencyKey: crypto.randomUUID() }],
    resumeConversationAction: [f.conversation.id, { value: { approved: true }, idempotencyKey: crypto.randomUUID() }],
    cancelRunAction: [f.run.id],
    sendMentionsAction: [f.conversation.id, { memberIds: [f.team.members[0]!.id], text: 'x', messageKey: crypto.randomUUID() }],
    deleteConversationAction: [f.conversation.id],
  });

  it("another owner's agent, conversation or run answers not_found from every action, and nothing changes", async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    expect(Object.keys(actions).sort()).toEqual(Object.keys(cases).sort());
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await conversationRows();
      expect(await action(...cases[name]!), name).toMatchObject(NOT_FOUND);
      expect(await conversationRows(), `${name} changed state`).toBe(before);
    }
    // A bad body on someone else's conversation is still not_found, not a hint through a field error.
    expect(await actions.sendMessageAction(f.conversation.id, { nope: 1 })).toMatchObject(NOT_FOUND);
  });

  it('signed out, every action answers unauthorized and nothing changes', async () => {
    const f = await fixtures();
    scope.headers = new Headers();
    const cases = argsFor(f);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await conversationRows();
      expect(await action(...cases[name]!), name).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
      expect(await conversationRows(), `${name} changed state`).toBe(before);
    }
  });
});
