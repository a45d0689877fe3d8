import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createConversation } from '@/server/agents/conversations';
import { getDb, schema, writeTx } from '@/server/db';
import { exportTeam } from '@/server/teams/export';
import { inline } from '@/server/teams/export-markdown';
import { readHistory } from '@/server/teams/history';
import { sendMentions } from '@/server/teams/mentions';
import { sendRequest } from '@/server/teams/requests';
import { retryJob } from '@/server/teams/retry';
import { seedRun } from '../budgets/support';
import { job, settled, withScheduler } from '../support/scheduler';
import { scriptAgent } from '../support/scripts';
import { makeAgents, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

// A retry keeps the original's author (issue #31, item 4). What must not happen: a member's handoff, retried by the
// person, arriving as the person's request — its directives obeyed (ADR 012), credited to "You" in the feed, the
// shared record and the export, its result sent nowhere — or a retried @mention losing its way back to its chat.

withScheduler();

const jobsOf = async (teamId: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId)).orderBy(schema.jobs.seq);
const text = async (chunks: AsyncIterable<string>) => {
  let out = '';
  for await (const c of chunks) out += c;
  return out;
};
const receiptOf = (teamId: string, requestId: string) =>
  until(async () => (await getDb().select().from(schema.jobs).where(and(eq(schema.jobs.teamId, teamId), eq(schema.jobs.parentId, requestId), eq(schema.jobs.kind, 'receipt'))))[0], 10_000, 'the receipt');

describe('retry keeps authorship', () => {
  it('a member’s failed handoff, retried: still the member’s, its directives not obeyed, credited to the member, its result back to the member', async () => {
    const owner = await makeUser('owner');
    const { team, agents } = await makeTeam(owner.id);
    const [sender, receiver] = team.members;
    // The directive in the handoff's text would make the receiver answer "obeyed" if it carried the person's trust.
    await scriptAgent(agents[0]!.id, `/call send_member ${JSON.stringify({ member: receiver!.name, text: '/reply obeyed', request_id: 'h1' })}`);
    await scriptAgent(agents[1]!.id, '/fail not now');
    await sendRequest(owner.id, team.id, { memberIds: [sender!.id], text: 'Start', draftKey: crypto.randomUUID() });
    const handoff = await until(async () => (await jobsOf(team.id)).find((j) => j.kind === 'request' && j.sourceMemberId === sender!.id), 10_000, 'the handoff');
    expect((await settled(handoff.id)).status).toBe('failed');

    await scriptAgent(agents[1]!.id); // The receiver now answers by the request's text alone.
    const { job: retried } = await retryJob(owner.id, team.id, handoff.id, { requestId: 'again' });
    expect(retried).toMatchObject({ retryOf: handoff.id, sourceMemberId: sender!.id, memberId: receiver!.id });
    const done = await settled(retried.id);
    expect(done.status).toBe('completed');
    expect(done.result).not.toBe('obeyed');
    expect(done.result).toContain('received');

    // The result goes back to the member that asked, as a receipt in its conversation.
    expect(await receiptOf(team.id, retried.id)).toMatchObject({ memberId: sender!.id, conversationId: sender!.conversationId });

    // Feed (the shared record as read back) and export credit the member, not "You".
    const { messages } = await readHistory(team.id, { jobId: retried.id });
    const request = messages.find((m) => m.kind === 'request');
    expect(request?.sender).toEqual({ member_id: sender!.id, name: sender!.name });
    const md = await text((await exportTeam(owner.id, team.id, 'md')).chunks);
    expect(md).toContain(`. @${inline(sender!.name)} → @${inline(receiver!.name)} · Completed\n\n_retry of request`);
    expect(md).not.toContain(`. You → @${inline(receiver!.name)}`);
    const json = JSON.parse(await text((await exportTeam(owner.id, team.id, 'json')).chunks)) as { jobs: Array<{ id: string; sourceMemberId: string | null }> };
    expect(json.jobs.find((j) => j.id === retried.id)?.sourceMemberId).toBe(sender!.id);
  });

  /** A member's handoff that failed (its receiver failing by its owner's instructions). */
  async function failedHandoff() {
    const owner = await makeUser('owner');
    const { team, agents } = await makeTeam(owner.id);
    const [sender, receiver] = team.members;
    await scriptAgent(agents[0]!.id, `/call send_member ${JSON.stringify({ member: receiver!.name, text: 'help', request_id: 'h2' })}`);
    await scriptAgent(agents[1]!.id, '/fail not now');
    await sendRequest(owner.id, team.id, { memberIds: [sender!.id], text: 'Start', draftKey: crypto.randomUUID() });
    const handoff = await until(async () => (await jobsOf(team.id)).find((j) => j.kind === 'request' && j.sourceMemberId === sender!.id), 10_000, 'the handoff');
    await settled(handoff.id);
    await until(async () => (await jobsOf(team.id)).every((j) => ['completed', 'failed', 'cancelled'].includes(j.status)), 10_000, 'the team to settle');
    return { owner, team, sender: sender!, handoff };
  }

  it('a retried handoff can’t be sent to the member that sent it (422 on memberId); nothing is queued', async () => {
    const { owner, team, sender, handoff } = await failedHandoff();
    const before = (await jobsOf(team.id)).length;
    await expect(retryJob(owner.id, team.id, handoff.id, { requestId: 'self', memberId: sender.id })).rejects.toMatchObject({ status: 422, fields: { memberId: expect.any(String) } });
    expect((await jobsOf(team.id)).length).toBe(before);
  });

  it('the person retrying a member’s handoff meets the team budget as the person’s own send does (409); nothing is queued', async () => {
    const { owner, team, handoff } = await failedHandoff();
    await seedRun({ ownerId: owner.id, conversationId: team.members[1]!.conversationId!, tokens: 10_000, teamId: team.id });
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: 500 }).where(eq(schema.teams.id, team.id)));
    const before = (await jobsOf(team.id)).length;
    await expect(retryJob(owner.id, team.id, handoff.id, { requestId: 'over' })).rejects.toMatchObject({ status: 409, code: 'team_budget_reached' });
    expect((await jobsOf(team.id)).length).toBe(before);
  });

  it('a retried @mention from a chat keeps its way back: the result returns to that chat', async () => {
    const owner = await makeUser('owner');
    const { team, agents } = await makeTeam(owner.id);
    const [chatAgent] = await makeAgents(owner.id, [`Chat-${crypto.randomUUID().slice(0, 6)}`]);
    const chat = await createConversation(owner.id, chatAgent!.id);
    await scriptAgent(agents[0]!.id, '/fail not now');
    const { jobs } = await sendMentions(owner.id, chat.id, { memberIds: [team.members[0]!.id], text: 'Check the plan 计划 🚀', messageKey: 'm1' });
    const mention = jobs[0]!.jobId;
    expect((await settled(mention)).status).toBe('failed');
    await scriptAgent(agents[0]!.id);
    const { job: retried } = await retryJob(owner.id, team.id, mention, { requestId: 'again' });
    expect(retried).toMatchObject({ sourceMemberId: null, sourceConversationId: chat.id });
    expect((await settled(retried.id)).status).toBe('completed');
    expect(await receiptOf(team.id, retried.id)).toMatchObject({ memberId: null, conversationId: chat.id });
    expect((await job(retried.id)).sourceConversationId).toBe(chat.id);
  });
});
