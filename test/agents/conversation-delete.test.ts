import crypto from 'node:crypto';
import { eq, inArray, or } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { DELETE as deleteRoute, GET as detailRoute } from '@/app/api/v1/conversations/[id]/route';
import { GET as listRoute } from '@/app/api/v1/conversations/route';
import { readCheckpointStore } from '@/server/agents/checkpointer';
import { deleteConversation } from '@/server/agents/conversation-delete';
import { createConversation } from '@/server/agents/conversations';
import { conversationsHeld, overrideQuotasForTests } from '@/server/agents/quotas';
import { start } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { createApiToken } from '@/server/auth/tokens';
import { getDb, schema, writeTx } from '@/server/db';
import { deleteTeam } from '@/server/teams/lifecycle';
import { sendMentions } from '@/server/teams/mentions';
import { deleteAgent } from '@/server/agents/catalog';
import { delegationsOf, taskCall, withDelegationScheduler } from '../delegation/helpers';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { errorText, refuseUpdate } from '../support/refuse-update';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { conversationWith, finished, send, until } from './helpers';

/**
 * Deleting a conversation (ADR 050): the conversation and, transitively, the hidden conversations its runs delegated
 * to go in one write transaction with their runs and delegation rows, then their threads (checkpoints, messages,
 * run events and the receipts read from them). Runs on either engine (test:pg runs this file on Postgres too).
 */

withDelegationScheduler();
const gate = registerGateTool();
afterEach(() => overrideQuotasForTests());

type Tree = { root: string; hidden: string[]; runIds: string[] };

/** A conversation whose run delegated to a child that delegated once more: root, child and grandchild conversations. */
async function tree(ownerId: string, overrides: Record<string, unknown> = {}): Promise<Tree & { agentId: string }> {
  const { agent, conversation } = await conversationWith(ownerId, { maxDepth: 2, ...overrides });
  const run = await send(ownerId, conversation.id, taskCall({ description: 'd', prompt: taskCall({ description: 'deeper', prompt: '/reply from depth two' }) }));
  expect(run.status).toBe('success');
  const [child] = await delegationsOf(run.id);
  const [grand] = await delegationsOf(child!.childRunId!);
  expect([child?.status, grand?.status]).toEqual(['completed', 'completed']);
  return {
    agentId: agent.id,
    root: conversation.id,
    hidden: [child!.childConversationId!, grand!.childConversationId!],
    runIds: [run.id, child!.childRunId!, grand!.childRunId!],
  };
}

/** What is stored for these conversations, per kind: rows of the app's tables and of the checkpoint side. */
async function stored({ root, hidden, runIds }: Tree) {
  const ids = [root, ...hidden];
  const db = getDb();
  const conversations = await db.select({ id: schema.conversations.id }).from(schema.conversations).where(inArray(schema.conversations.id, ids));
  const runs = await db.select({ id: schema.runs.id }).from(schema.runs).where(inArray(schema.runs.conversationId, ids));
  const delegations = await db
    .select({ id: schema.delegations.id })
    .from(schema.delegations)
    .where(or(inArray(schema.delegations.parentConversationId, ids), inArray(schema.delegations.childConversationId, ids)));
  const threads = (await Promise.all(ids.map(async (id) => (await readThread(id)).checkpointId))).filter((c) => c !== null);
  const side = await readCheckpointStore(
    (sqlite) => {
      const marks = ids.map(() => '?').join(',');
      const count = (sql: string, args: string[]) => (sqlite.prepare(sql).get(...args) as { n: number }).n;
      return {
        messages: count(`select count(*) as n from thread_messages where thread_id in (${marks})`, ids),
        events: count(`select count(*) as n from run_events where run_id in (${runIds.map(() => '?').join(',')})`, runIds),
      };
    },
    async (saver) => {
      const count = async (sql: string, args: string[]) => (await saver.pool.query<{ n: number }>(sql, [args])).rows[0]!.n;
      return {
        messages: await count(`select count(*)::int as n from "${saver.schema}".thread_messages where thread_id = any($1)`, ids),
        events: await count(`select count(*)::int as n from "${saver.schema}".run_events where run_id = any($1)`, runIds),
      };
    },
  );
  return { conversations: conversations.length, runs: runs.length, delegations: delegations.length, threads: threads.length, ...side };
}

const everything = { conversations: 3, runs: 3, delegations: 2, threads: 3 };
const nothing = { conversations: 0, runs: 0, delegations: 0, threads: 0, messages: 0, events: 0 };

const del = (auth: Record<string, string>, id: string) =>
  call(deleteRoute, { method: 'DELETE', url: `http://localhost/api/v1/conversations/${id}`, headers: auth, params: { id } });

describe('DELETE /api/v1/conversations/:id takes the hidden conversations its runs delegated to', () => {
  it('deletes root, child and grandchild with their runs, delegations, threads and run events; nothing else', async () => {
    const alice = await makeUser('alice');
    const doomed = await tree(alice.id);
    const kept = await tree(alice.id);
    const before = await stored(doomed);
    expect(before).toMatchObject(everything);
    expect(before.messages).toBeGreaterThan(0);
    expect(before.events).toBeGreaterThan(0);

    const res = await del(alice.auth, doomed.root);
    expect([res.status, res.raw]).toEqual([204, '']);
    expect(await stored(doomed)).toEqual(nothing);
    // What must not happen: the delete reaching the owner's other conversation tree.
    expect(await stored(kept)).toMatchObject(everything);
    const list = await call(listRoute, { headers: alice.auth });
    expect((list.body.conversations as Array<{ id: string }>).map((c) => c.id)).toEqual([kept.root]);
    expect((await call(detailRoute, { headers: alice.auth, params: { id: doomed.root } })).status).toBe(404);
  });

  it('a second delete is 404, and so is an id that never existed', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    expect((await del(alice.auth, conversation.id)).status).toBe(204);
    expect((await del(alice.auth, conversation.id)).body).toMatchObject({ error: { code: 'not_found', message: 'Conversation not found' } });
    expect((await del(alice.auth, crypto.randomUUID())).status).toBe(404);
    // Nothing can start on it any more.
    await expect(start(alice.id, conversation.id, { text: '/reply late' }, { idempotencyKey: crypto.randomUUID() })).rejects.toMatchObject({ code: 'not_found' });
  });

  it("another owner's conversation is 404 exactly like a missing one, and nothing of it is deleted", async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const hers = await tree(alice.id);
    const foreign = await del(mallory.auth, hers.root);
    const missing = await del(mallory.auth, crypto.randomUUID());
    expect([foreign.status, foreign.body]).toEqual([missing.status, missing.body]);
    expect(foreign.status).toBe(404);
    // Her hidden ones too: an id mallory may have seen must not let him delete (or learn of) alice's tree.
    for (const id of hers.hidden) expect((await del(mallory.auth, id)).status).toBe(404);
    expect(await stored(hers)).toMatchObject(everything);
  });

  it('a read-only token gets 403 and nothing is deleted', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const reader = await createApiToken(alice.id, 'reader', { scope: 'read' });
    const res = await del({ authorization: `Bearer ${reader.token}` }, conversation.id);
    expect([res.status, res.body]).toMatchObject([403, { error: { code: 'read_only_token' } }]);
    expect((await call(detailRoute, { headers: alice.auth, params: { id: conversation.id } })).status).toBe(200);
  });

  it('a hidden conversation deleted by its own id is refused (it goes with its root); nothing is deleted', async () => {
    const alice = await makeUser('alice');
    const t = await tree(alice.id);
    for (const id of t.hidden) {
      expect((await del(alice.auth, id)).body).toMatchObject({ error: { code: 'delegated_conversation' } });
    }
    expect(await stored(t)).toMatchObject(everything);
  });
});

describe('refusals: a run still working, a team member’s conversation', () => {
  it('409 conversation_busy while a run is running; deletable once it finished', async () => {
    gate.close();
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: [GATE_GROUP] });
    const { run } = await start(alice.id, conversation.id, { text: '/call hold {}\n/reply done' }, { idempotencyKey: crypto.randomUUID() });
    await until(() => gate.entered === 1, 5_000);
    const busy = await del(alice.auth, conversation.id);
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ error: { code: 'conversation_busy', message: expect.stringContaining('stop the run first') } });
    // What must not happen: the running run's rows (or its conversation) disappearing under it.
    expect((await call(detailRoute, { headers: alice.auth, params: { id: conversation.id } })).status).toBe(200);
    gate.open();
    expect((await finished(run.id)).status).toBe('success');
    expect((await del(alice.auth, conversation.id)).status).toBe(204);
  });

  it('409 conversation_busy while a delegated child still works (its root waits, running)', async () => {
    gate.close();
    const before = gate.entered;
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: [GATE_GROUP, 'delegate'] });
    const { run } = await start(alice.id, conversation.id, { text: taskCall({ description: 'd', prompt: '/call hold {}\n/reply child done' }) }, { idempotencyKey: crypto.randomUUID() });
    await until(() => gate.entered === before + 1, 10_000);
    const [child] = await delegationsOf(run.id);
    const t: Tree = { root: conversation.id, hidden: [child!.childConversationId!], runIds: [run.id, child!.childRunId!] };
    expect((await del(alice.auth, conversation.id)).body).toMatchObject({ error: { code: 'conversation_busy' } });
    expect(await stored(t)).toMatchObject({ conversations: 2, runs: 2, delegations: 1 });
    gate.open();
    expect((await finished(run.id)).status).toBe('success');
    expect((await del(alice.auth, conversation.id)).status).toBe(204);
    expect(await stored(t)).toEqual(nothing);
  });

  it('a run waiting for an approval does not hold the conversation: deleting it abandons the question', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], approvalTools: ['calculator'] });
    const waiting = await send(alice.id, conversation.id, '/call calculator {"expression":"6*7"}');
    expect(waiting.status).toBe('interrupted');
    expect((await del(alice.auth, conversation.id)).status).toBe(204);
    expect(await stored({ root: conversation.id, hidden: [], runIds: [waiting.id] })).toEqual(nothing);
  });

  it('a team member’s conversation is refused while the team exists; after the team is deleted it can go', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const memberConversation = team.members[0]!.conversationId!;
    const refused = await del(alice.auth, memberConversation);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'conversation_in_team', message: expect.stringContaining(team.name) } });
    expect((await call(detailRoute, { headers: alice.auth, params: { id: memberConversation } })).status).toBe(200);
    await deleteTeam(alice.id, team.id);
    expect((await del(alice.auth, memberConversation)).status).toBe(204);
  });

  it('the list and the detail name a member conversation’s team (the chat offers no Delete for it), only to its owner', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Writer', 'Editor']);
    // The same agent in a chat of the person's own: not a member conversation.
    const own = await createConversation(alice.id, agents[0]!.id);
    const memberConversation = team.members[0]!.conversationId!;
    const detail = await call(detailRoute, { headers: alice.auth, params: { id: memberConversation } });
    expect(detail.body).toMatchObject({ team: { id: team.id, name: team.name } });
    expect((await call(detailRoute, { headers: alice.auth, params: { id: own.id } })).body).toMatchObject({ team: null });
    const items = (await call(listRoute, { headers: alice.auth })).body as { conversations: Array<{ id: string; team: unknown }> };
    expect(items.conversations.find((c) => c.id === memberConversation)?.team).toEqual({ id: team.id, name: team.name });
    expect(items.conversations.find((c) => c.id === own.id)?.team).toBeNull();

    // Another owner sees neither the conversation nor its team.
    const bob = await makeUser('bob');
    const strangers = await call(detailRoute, { headers: bob.auth, params: { id: memberConversation } });
    expect(strangers.status).toBe(404);
    expect(JSON.stringify(strangers.body)).not.toContain(team.name);
    const bobsList = (await call(listRoute, { headers: bob.auth })).body as { conversations: unknown[] };
    expect(bobsList.conversations).toEqual([]);

    // Once the team is deleted the conversation is its own again: no team named, and Delete works.
    await deleteTeam(alice.id, team.id);
    expect((await call(detailRoute, { headers: alice.auth, params: { id: memberConversation } })).body).toMatchObject({ team: null });
    expect((await del(alice.auth, memberConversation)).status).toBe(204);
  });
});

describe('team requests sent from the conversation', () => {
  it('refused while one is unfinished; once finished, the team keeps the request but no longer points at the chat', async () => {
    gate.close();
    const before = gate.entered;
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id);
    // The member holds its request open at the gate until the test says (written straight to its row: the catalog's
    // schema knows only the product's tool groups).
    await writeTx((tx) => tx.update(schema.agents).set({ toolGroups: [GATE_GROUP] }).where(eq(schema.agents.id, agents[0]!.id)));
    const { conversation } = await conversationWith(alice.id);
    const member = team.members[0]!;
    await sendMentions(alice.id, conversation.id, { memberIds: [member.id], text: '/call hold {}\n/reply looked', messageKey: crypto.randomUUID() });
    await until(() => gate.entered === before + 1, 10_000);
    const jobsFromChat = () => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id));

    const refused = await del(alice.auth, conversation.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'conversation_busy', message: expect.stringContaining('team request') } });
    expect((await jobsFromChat()).map((j) => j.sourceConversationId)).toContain(conversation.id);

    gate.open();
    // The request finishes, and its result comes back to the chat as a receipt job that runs there.
    await until(async () => {
      const jobs = await jobsFromChat();
      return jobs.length === 2 && jobs.every((j) => j.status === 'completed');
    }, 15_000);
    expect((await del(alice.auth, conversation.id)).status).toBe(204);
    const after = await jobsFromChat();
    // What must not happen: the team's record losing the request, or a later retry returning into a deleted chat.
    expect(after.find((j) => j.kind === 'request')).toMatchObject({ status: 'completed', sourceConversationId: null, memberId: member.id });
    expect((await call(detailRoute, { headers: alice.auth, params: { id: member.conversationId! } })).status).toBe(200);
  });
});

describe('quota and the agent’s deletion', () => {
  it('deleting a root with two hidden conversations gives back three places: at the limit, then one past', async () => {
    // What must not happen: hidden conversations of a deleted root still counting, so the account stays full.
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const bobs = await tree(bob.id);
    const t = await tree(alice.id);
    overrideQuotasForTests({ conversationsPerAccount: 4 });
    const { agent } = await conversationWith(alice.id); // the fourth of four
    expect(await conversationsHeld(alice.id)).toBe(4);
    await expect(createConversation(alice.id, agent.id)).rejects.toMatchObject({ code: 'conversation_limit' });

    await deleteConversation(alice.id, t.root);
    expect(await conversationsHeld(alice.id)).toBe(1);
    for (let i = 0; i < 3; i++) await createConversation(alice.id, agent.id); // at the limit again
    expect(await conversationsHeld(alice.id)).toBe(4);
    await expect(createConversation(alice.id, agent.id)).rejects.toMatchObject({ code: 'conversation_limit' });
    // Bob's account is untouched by alice's delete.
    expect(await conversationsHeld(bob.id)).toBe(3);
    expect(await stored(bobs)).toMatchObject(everything);
  });

  it('deleting the agent leaves its conversations and their hidden ones whole; deleting the conversation then takes them', async () => {
    const alice = await makeUser('alice');
    const t = await tree(alice.id);
    await deleteAgent(alice.id, t.agentId);
    expect(await stored(t)).toMatchObject(everything);
    expect(await deleteConversation(alice.id, t.root)).toEqual({ id: t.root, hidden: t.hidden });
    expect(await stored(t)).toEqual(nothing);
  });
});

describe('races', () => {
  it('a flood of deletes of one conversation: exactly one deletes, every other answers not_found', async () => {
    const alice = await makeUser('alice');
    const t = await tree(alice.id);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => deleteConversation(alice.id, t.root)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'not_found' });
    expect(await stored(t)).toEqual(nothing);
  });

  it('a message sent while the delete runs: either the run started and the delete was refused, or the send found nothing', async () => {
    // What must not happen: a run left on a deleted conversation, or a conversation deleted under a run that started.
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const [sent, deleted] = await Promise.allSettled([
      start(alice.id, conversation.id, { text: '/reply raced' }, { idempotencyKey: crypto.randomUUID() }),
      deleteConversation(alice.id, conversation.id),
    ]);
    const runs = await getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversation.id));
    if (sent.status === 'fulfilled') {
      expect(deleted).toMatchObject({ status: 'rejected', reason: { code: 'conversation_busy' } });
      expect(runs.map((r) => r.id)).toEqual([sent.value.run.id]);
      await finished(sent.value.run.id);
    } else {
      expect(deleted.status).toBe('fulfilled');
      expect(sent.reason).toMatchObject({ code: 'not_found' });
      expect(runs).toEqual([]);
    }
  });
});

describe('all or nothing', () => {
  it('a failure in the middle of the delete (after runs and delegations went) rolls everything back', async () => {
    const alice = await makeUser('alice');
    const t = await tree(alice.id);
    const before = await stored(t);
    const restore = await refuseUpdate({ name: 'refuse_conversation_delete', table: 'conversations', on: 'delete', id: t.root, message: 'disk full' });
    try {
      const failed = await deleteConversation(alice.id, t.root).then(
        () => null,
        (err: unknown) => err,
      );
      expect(errorText(failed)).toContain('disk full');
    } finally {
      await restore();
    }
    // What must not happen: runs, delegations or hidden conversations gone while the root stays (or threads deleted
    // for a delete that did not commit).
    expect(await stored(t)).toEqual(before);
    await deleteConversation(alice.id, t.root);
    expect(await stored(t)).toEqual(nothing);
  });
});
