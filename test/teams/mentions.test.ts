import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as mentionsRoute from '@/app/api/v1/conversations/[id]/mentions/route';
import { getDb, schema } from '@/server/db';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { createConversation, start } from '@/server/agents/runs';
import { activeRuns } from '@/server/agents/run-events';
import { readThread } from '@/server/agents/thread';
import { mentionLabel } from '@/server/teams/mentions';
import { makeUser } from '../support/users';
import { call, makeAgents, makeTeam } from '../support/teams';
import { until } from '../support/wait';

const jobsOf = async (teamId: string) => await getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId)).orderBy(schema.jobs.seq);

beforeAll(() => {
  startScheduler(teamJobs, { tickMs: 30 });
});
afterAll(async () => {
  await stopScheduler();
  // The last test leaves its request running: let the run end before the database closes (and, on Postgres, is
  // dropped under it).
  await until(() => activeRuns().size === 0, 10_000, 'runs to settle');
});

describe('mention labels', () => {
  it('use "Team / Member" up to 120 UTF-16 units, else the member name alone', () => {
    const team = 'T'.repeat(100);
    expect(mentionLabel(team, 'M'.repeat(17))).toBe(`${team} / ${'M'.repeat(17)}`); // 120 units
    expect(mentionLabel(team, 'M'.repeat(18))).toBe('M'.repeat(18)); // 121 units
    expect(mentionLabel('🤖'.repeat(50), 'M'.repeat(17))).toBe(`${'🤖'.repeat(50)} / ${'M'.repeat(17)}`); // emoji count 2 units each
    expect(mentionLabel('🤖'.repeat(50), 'M'.repeat(18))).toBe('M'.repeat(18));
    expect(mentionLabel('研'.repeat(100), 'M'.repeat(17)).length).toBe(120);
  });
});

describe('@mentions from an ordinary conversation', () => {
  it('queue one request per member and return each result to the conversation as a receipt', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    const [solo] = await makeAgents(alice.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    const conversation = await createConversation(alice.id, solo!.id);
    const targets = await call(mentionsRoute.GET, { headers: alice.auth, params: { id: conversation.id } });
    expect((targets.body.targets as Array<{ memberId: string; label: string }>).map((t) => t.label)).toEqual(team.members.map((m) => `${team.name} / ${m.name}`));

    const body = { memberIds: team.members.map((m) => m.id), text: '/reply on it', messageKey: 'msg-1' };
    const sent = await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id: conversation.id } });
    expect(sent.status).toBe(201);
    const again = await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id: conversation.id } });
    expect(again.status).toBe(200);
    const ids = (r: typeof sent) => (r.body.jobs as Array<{ jobId: string }>).map((j) => j.jobId);
    expect(ids(again)).toEqual(ids(sent));

    const all = await until(async () => {
      const jobs = await jobsOf(team.id);
      return jobs.length === 4 && jobs.every((j) => j.status === 'completed') && jobs;
    }, 10_000, 'requests and receipts');
    const requests = all.filter((j) => j.kind === 'request');
    expect(requests.every((j) => j.sourceConversationId === conversation.id && j.sourceMemberId === null)).toBe(true);
    const receipts = all.filter((j) => j.kind === 'receipt');
    expect(receipts.every((j) => j.conversationId === conversation.id && j.memberId === null)).toBe(true);

    const { messages } = await readThread(conversation.id);
    const texts = messages.map((m) => `${m.getType()}:${String(m.content).split('\n')[0]}`);
    expect(texts.filter((t) => t.startsWith('ai:Queued 2 requests'))).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('human:/reply on it'))).toHaveLength(1);
    const replies = messages.filter((m) => m.getType() === 'ai' && String(m.content).startsWith('Received completed result from'));
    expect(replies).toHaveLength(2);

    // The team's shared record holds the person's requests and the members' results. What must not happen: the chat
    // agent's replies to the receipts recorded there as written by "You" (every member's context would show model
    // text as the person's words).
    const record = await getDb().select().from(schema.sharedMessages).where(eq(schema.sharedMessages.teamId, team.id)).orderBy(schema.sharedMessages.seq);
    expect(record.map((r) => [r.kind, r.senderLabel]).sort()).toEqual(
      [...team.members.map(() => ['request', 'You']), ...team.members.map((m) => ['result', m.name])].sort(),
    );
    expect(record.some((r) => r.text.startsWith('Received completed result from'))).toBe(false);
  });

  it("a result coming back to the chat is not a change of the chat agent's setup", async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Research', 'Review']);
    const [solo] = await makeAgents(alice.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    const conversation = await createConversation(alice.id, solo!.id);
    const runsOf = () => getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversation.id)).orderBy(schema.runs.createdAt);
    const finished = (n: number) => until(async () => {
      const runs = (await runsOf()).filter((r) => r.kind !== 'note');
      return runs.length === n && runs.every((r) => r.status === 'success') && runs;
    }, 10_000, `${n} finished runs`);
    await start(alice.id, conversation.id, { text: '/reply before' }, { idempotencyKey: 'before' });
    await finished(1);
    const body = { memberIds: [team.members[0]!.id], text: '/reply on it', messageKey: 'msg-setup' };
    expect((await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id: conversation.id } })).status).toBe(201);
    await finished(2);
    await start(alice.id, conversation.id, { text: '/reply after' }, { idempotencyKey: 'after' });
    const [plain, receipt, after] = await finished(3);
    const assembly = (r: typeof plain) => r!.assembly as { changes: unknown[] | null };
    // What must not happen: the receipt's run, then the next plain message, each shown as "Setup changed · Instructions"
    // although nobody edited the agent (the receipt's run used to get the team member's report contract).
    expect(assembly(receipt).changes).toEqual([]);
    expect(assembly(after).changes).toEqual([]);
    expect(new Set([plain, receipt, after].map((r) => r!.fingerprint)).size).toBe(1);
  });

  it('never lets a member conversation mention itself, and hides other owners', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const fromA = await call(mentionsRoute.GET, { headers: alice.auth, params: { id: a!.conversationId! } });
    expect((fromA.body.targets as Array<{ memberId: string }>).map((t) => t.memberId)).toEqual([b!.id]);
    const self = await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [a!.id], text: 'hi', messageKey: 'k' }, params: { id: a!.conversationId! } });
    expect(self.status).toBe(422);
    expect(await jobsOf(team.id)).toHaveLength(0);
    const asBob = await call(mentionsRoute.GET, { headers: bob.auth, params: { id: a!.conversationId! } });
    expect(asBob.status).toBe(404);
    const [bobsAgent] = await makeAgents(bob.id, ['Bobs']);
    const bobsConversation = await createConversation(bob.id, bobsAgent!.id);
    const foreign = await call(mentionsRoute.POST, { method: 'POST', headers: bob.auth, body: { memberIds: [b!.id], text: 'hi', messageKey: 'k' }, params: { id: bobsConversation.id } });
    expect(foreign.status).toBe(422);
    expect(await jobsOf(team.id)).toHaveLength(0);
    expect((await call(mentionsRoute.GET, { params: { id: a!.conversationId! } })).status).toBe(401);
  });

  it('refuses while the conversation waits on an approval, and records the mentioned labels', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [gated] = await makeAgents(alice.id, [`Gated-${crypto.randomUUID().slice(0, 4)}`], { approvalTools: ['calculator'] });
    const conversation = await createConversation(alice.id, gated!.id);
    const { start, wait } = await import('@/server/agents/runs');
    const { run } = await start(alice.id, conversation.id, { text: '/call calculator {"expression":"1+1"}' }, { idempotencyKey: 'gate' });
    expect((await wait(run.id, 10_000))?.status).toBe('interrupted');
    const refused = await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [team.members[0]!.id], text: 'hi', messageKey: 'm' }, params: { id: conversation.id } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'interrupt_pending' } });
    expect(await jobsOf(team.id)).toHaveLength(0);

    const [plain] = await makeAgents(alice.id, [`Plain-${crypto.randomUUID().slice(0, 4)}`]);
    const other = await createConversation(alice.id, plain!.id);
    await call(mentionsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [team.members[1]!.id], text: 'hi', messageKey: 'm2' }, params: { id: other.id } });
    const { messages } = await readThread(other.id);
    const human = messages.find((m) => m.getType() === 'human')!;
    expect(human.additional_kwargs.ensemble).toMatchObject({ kind: 'mention', labels: [`${team.name} / ${team.members[1]!.name}`] });
  });
});

