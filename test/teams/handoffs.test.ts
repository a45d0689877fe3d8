import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { finalizeJob } from '@/server/teams/execution';
import { cancelJob } from '@/server/teams/cancel';
import { getActivity } from '@/server/teams/activity';
import { createConversation, start, wait } from '@/server/agents/runs';
import { makeUser } from '../support/users';
import { makeAgents, makeTeam } from '../support/teams';
import { scriptAgent } from '../support/scripts';
import { until } from '../support/wait';

const db = () => getDb();
const job = async (id: string) => (await db().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const jobsOf = async (teamId: string) => await db().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId)).orderBy(schema.jobs.seq);
const finished = (s: string) => ['completed', 'failed', 'cancelled'].includes(s);
const quiet = (teamId: string, count?: number) =>
  until(async () => {
    const all = await jobsOf(teamId);
    return (count === undefined || all.length === count) && all.length > 0 && all.every((j) => finished(j.status)) && all;
  }, 15_000, `team ${teamId} to go quiet`);
const call = (tool: string, args: object) => `/call ${tool} ${JSON.stringify(args)}`;

beforeAll(() => {
  startScheduler(teamJobs, { tickMs: 30 });
});
afterAll(async () => {
  await stopScheduler();
});

describe('send_member handoffs', () => {
  it('queues a peer request and returns its result to the requester exactly once', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Research', 'Review']);
    const [research, review] = team.members;
    // Review is scripted by its owner's instructions: directives in a peer's request text are never obeyed.
    await scriptAgent(agents[1]!.id, '/reply Looks good');
    const root = (await sendRequest(alice.id, team.id, {
      memberIds: [research!.id],
      text: call('send_member', { member: review!.name.toUpperCase(), text: 'Please review', request_id: 'r1' }),
      draftKey: 'd',
    })).jobs[0]!;
    const all = await quiet(team.id, 3);
    const [rootJob, handoff, receipt] = all;
    expect(rootJob!.id).toBe(root.id);
    expect(JSON.parse(rootJob!.result!.split('[send_member] ')[1]!)).toMatchObject({ id: handoff!.id, status: 'queued' });
    expect(handoff).toMatchObject({ kind: 'request', memberId: review!.id, sourceMemberId: research!.id, parentId: root.id, rootId: root.id, status: 'completed', result: 'Looks good' });
    expect(receipt).toMatchObject({ kind: 'receipt', memberId: research!.id, conversationId: research!.conversationId, parentId: handoff!.id, status: 'completed' });
    expect(receipt!.result).toBe(`Received completed result from ${review!.name}: Looks good`);
    expect(handoff!.receiptJobId).toBe(receipt!.id);
    // Finishing again (a retried step) never writes a second receipt.
    await writeTx((tx) => tx.update(schema.jobs).set({ status: 'running' }).where(eq(schema.jobs.id, handoff!.id)));
    await finalizeJob(handoff!.id);
    expect((await jobsOf(team.id)).filter((j) => j.kind === 'receipt')).toHaveLength(1);
    const feed = await getActivity(alice.id, team.id, { limit: 20, offset: 0, details: true });
    const card = 'jobs' in feed ? feed.jobs.find((j) => j.id === handoff!.id) : undefined;
    expect(card?.receipt).toEqual({ id: receipt!.id, status: 'completed' });
  });

  it('returns failed results too, but never cancelled ones', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['A', 'B', 'C']);
    const [a, b, c] = team.members;
    // Scripted by their owner's instructions: B fails every request, C takes 20 s over each.
    await scriptAgent(agents[1]!.id, '/fail quota exceeded');
    await scriptAgent(agents[2]!.id, '/sleep 20000');
    await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: call('send_member', { member: b!.id, text: 'check the quota', request_id: 'x' }), draftKey: 'd' });
    const all = await quiet(team.id, 3);
    expect(all[1]).toMatchObject({ status: 'failed', error: expect.stringContaining('quota exceeded') });
    expect(all[2]!.result).toContain(`Received failed result from ${b!.name}: The request failed:`);

    await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: call('send_member', { member: c!.id, text: 'take your time', request_id: 'slow' }), draftKey: 'd2' });
    const slow = await until(async () => (await jobsOf(team.id)).find((j) => j.text === 'take your time' && j.memberId === c!.id && j.runId), 10_000, 'slow handoff running');
    await cancelJob(alice.id, team.id, slow.id);
    await quiet(team.id, 5);
    expect(await job(slow.id)).toMatchObject({ status: 'cancelled', receiptJobId: null });
    expect((await jobsOf(team.id)).filter((j) => j.kind === 'receipt')).toHaveLength(1);
  });

  it('deduplicates by request id, refuses a reused id with other text, self-sends and unknown members', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const text = [
      call('send_member', { member: b!.name, text: '/reply once', request_id: 'same' }),
      call('send_member', { member: b!.name, text: '/reply once', request_id: 'same' }),
      call('send_member', { member: b!.name, text: 'different', request_id: 'same' }),
      call('send_member', { member: a!.name, text: 'me', request_id: 'self' }),
      call('send_member', { member: 'Nobody', text: 'x', request_id: 'n' }),
    ].join('\n');
    const root = (await sendRequest(alice.id, team.id, { memberIds: [a!.id], text, draftKey: 'd' })).jobs[0]!;
    await quiet(team.id, 3);
    const requests = (await jobsOf(team.id)).filter((j) => j.kind === 'request');
    expect(requests).toHaveLength(2);
    const result = (await job(root.id)).result!;
    expect(result).toContain('already used for a different request');
    expect(result).toContain('cannot send a request to yourself');
    expect(result).toContain('No member "Nobody"');
  });

  it('accepts a root plus 11 handoffs in one chain and refuses the 12th', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const lines = Array.from({ length: 12 }, (_, i) => call('send_member', { member: b!.name, text: `/reply part ${i}`, request_id: `p${i}` }));
    const root = (await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: lines.join('\n'), draftKey: 'd' })).jobs[0]!;
    await until(async () => (await job(root.id)).status === 'completed', 15_000, 'root');
    const chain = (await jobsOf(team.id)).filter((j) => j.kind === 'request' && j.rootId === root.id);
    expect(chain).toHaveLength(12);
    expect(chain.slice(1).every((j) => j.parentId === root.id)).toBe(true);
    expect((await job(root.id)).result).toContain('Handoff limit reached: this chain of handoffs has its 12 requests; finish with what you have, or the person starts a new request');
    await quiet(team.id);
  });

  it('attributes a handoff to the executing request even while later requests to the caller are queued', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const first = (await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: `/sleep 200\n${call('send_member', { member: b!.name, text: 'hi', request_id: 'h' })}`, draftKey: 'one' })).jobs[0]!;
    const second = (await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: '/reply later', draftKey: 'two' })).jobs[0]!;
    await quiet(team.id);
    const handoff = (await jobsOf(team.id)).find((j) => j.kind === 'request' && j.sourceMemberId === a!.id)!;
    expect(handoff.parentId).toBe(first.id);
    expect(handoff.parentId).not.toBe(second.id);
  });

  it('is a tool error outside a member conversation and touches nothing', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [agent] = await makeAgents(alice.id, [`Solo-${crypto.randomUUID().slice(0, 4)}`]);
    const conversation = await createConversation(alice.id, agent!.id);
    const { run } = await start(alice.id, conversation.id, { text: call('send_member', { member: team.members[1]!.name, text: 'x', request_id: 'z' }) }, { idempotencyKey: 'k' });
    const done = await wait(run.id, 10_000);
    expect(done?.status).toBe('success');
    const { readThread } = await import('@/server/agents/thread');
    const { messages } = await readThread(conversation.id);
    const toolMessage = messages.find((m) => m.getType() === 'tool');
    expect(String(toolMessage?.content)).toContain('only available inside a team member conversation');
    expect(await jobsOf(team.id)).toHaveLength(0);
  });

  it('keeps receipts to their own capacity of 100 per team', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const now = new Date();
    await writeTx((tx) => tx.insert(schema.jobs).values(Array.from({ length: 100 }, (_, i) => ({
      id: crypto.randomUUID(), teamId: team.id, ownerId: alice.id, kind: 'receipt' as const, memberId: a!.id, conversationId: a!.conversationId!,
      rootId: 'seed', status: 'completed' as const, text: 'old', requestKey: `receipt:seed-${i}`, updatedAt: now,
    }))));
    await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: call('send_member', { member: b!.name, text: '/reply fine', request_id: 'c' }), draftKey: 'd' });
    await until(async () => (await jobsOf(team.id)).filter((j) => j.kind === 'request').every((j) => finished(j.status)) && (await jobsOf(team.id)).filter((j) => j.kind === 'request').length === 2, 10_000, 'requests');
    expect((await jobsOf(team.id)).filter((j) => j.kind === 'receipt')).toHaveLength(100);
    const note = await db().select().from(schema.sharedMessages).where(and(eq(schema.sharedMessages.teamId, team.id), eq(schema.sharedMessages.kind, 'note')));
    expect(note.map((n) => n.text)).toEqual(['Receipt capacity reached: this result was not returned to its requester.']);
  });
});
