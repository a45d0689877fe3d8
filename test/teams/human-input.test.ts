import { describe, expect, it } from 'vitest';
import { statement } from '@/server/db/statement';
import { sendRequest } from '@/server/teams/requests';
import { respondToJob } from '@/server/teams/answers';
import { cancelJob } from '@/server/teams/cancel';
import { readThread } from '@/server/agents/thread';
import { getActivity } from '@/server/teams/activity';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';
import { until } from '../support/wait';
import { job, settled, withScheduler } from '../support/scheduler';

withScheduler();

describe('clarifications and approvals through the team', () => {
  it('continues the member conversation with the answer as a human message with provenance; repeated questions work', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const j = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/ask Which format?', draftKey: 'q' })).jobs[0]!;
    const first = await settled(j.id);
    expect(first.waiting).toMatchObject({ type: 'clarification', question: 'Which format?' });
    expect(first.result).toBeNull();
    await respondToJob(alice.id, team.id, j.id, { answer: '/ask And the length?', answerKey: 'a1' });
    await until(async () => (await job(j.id)).status === 'waiting_input' && ((await job(j.id)).waiting as { question: string }).question === 'And the length?' && await job(j.id), 10_000, 'second question');
    await respondToJob(alice.id, team.id, j.id, { answer: 'Two pages', answerKey: 'a2' });
    const done = await settled(j.id);
    expect(done.status).toBe('completed');
    expect(done.result).toBe('Clarification accepted: Two pages.');
    const { messages } = await readThread(member.conversationId!);
    const answers = messages.filter((m) => (m.additional_kwargs?.ensemble as { kind?: string } | undefined)?.kind === 'clarification_answer');
    expect(answers.map((m) => (m.additional_kwargs.ensemble as { jobId: string }).jobId)).toEqual([j.id, j.id]);
    expect(messages.some((m) => m.getType() === 'system')).toBe(false);
  });

  it('gates an approval tool until the person responds with JSON', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Calc', 'Other'], { approvalTools: ['calculator'] });
    const member = team.members[0]!;
    const j = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/call calculator {"expression":"6*7"}', draftKey: 'c' })).jobs[0]!;
    const waiting = await settled(j.id);
    expect(waiting.waiting).toEqual({ type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: { expression: '6*7' } } });
    await respondToJob(alice.id, team.id, j.id, { response: { approved: true }, answerKey: 'ok' });
    const done = await settled(j.id);
    expect(done.status).toBe('completed');
    expect(done.result).toContain(`${agents[0]!.name}: done`);
    expect(done.result).toContain('[calculator] 42');
  });

  it("a job that went on after the person's answers keeps every run's steps reachable: its earlier runs, oldest first", async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const asking = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/ask Which format?', draftKey: 'q' })).jobs[0]!;
    const plain = (await sendRequest(alice.id, team.id, { memberIds: [team.members[1]!.id], text: '/reply plain', draftKey: 'p' })).jobs[0]!;
    const firstRun = (await settled(asking.id)).runId!;
    await respondToJob(alice.id, team.id, asking.id, { answer: '/ask And the length?', answerKey: 'a1' });
    await until(async () => (await job(asking.id)).status === 'waiting_input' && (await job(asking.id)).runId !== firstRun, 10_000, 'second question');
    const secondRun = (await job(asking.id)).runId!;
    await respondToJob(alice.id, team.id, asking.id, { answer: 'Two pages', answerKey: 'a2' });
    const done = await settled(asking.id);
    await settled(plain.id);

    const feed = await getActivity(alice.id, team.id, { limit: 20, offset: 0, details: true });
    if (!('jobs' in feed)) throw new Error('expected jobs');
    const card = (id: string) => feed.jobs.find((j) => j.id === id)!;
    expect(card(asking.id).run).toMatchObject({ id: done.runId, earlierRunIds: [firstRun, secondRun] });
    expect(new Set([firstRun, secondRun, done.runId]).size).toBe(3);
    expect(card(plain.id).run).toMatchObject({ earlierRunIds: [] });
    // What must not happen: another job's runs on the same conversation counted as this one's.
    const later = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/reply later', draftKey: 'l' })).jobs[0]!;
    await settled(later.id);
    const again = await getActivity(alice.id, team.id, { limit: 20, offset: 0, details: true });
    if (!('jobs' in again)) throw new Error('expected jobs');
    expect(again.jobs.find((j) => j.id === asking.id)!.run!.earlierRunIds).toEqual([firstRun, secondRun]);
    expect(again.jobs.find((j) => j.id === later.id)!.run!.earlierRunIds).toEqual([]);
  });

  it('a waiting job releases its slot but keeps its conversation: later requests to that member wait', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const asking = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/ask Ready?', draftKey: 'a' })).jobs[0]!;
    await settled(asking.id);
    const later = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/reply later', draftKey: 'b' })).jobs[0]!;
    const other = (await sendRequest(alice.id, team.id, { memberIds: [team.members[1]!.id], text: '/reply other member', draftKey: 'c' })).jobs[0]!;
    expect((await settled(other.id)).status).toBe('completed');
    expect((await job(later.id)).status).toBe('queued');
    const active = await statement(`select count(*) as n from jobs where status in ('running','cancelling')`).get() as { n: number };
    expect(active.n).toBe(0);
    await cancelJob(alice.id, team.id, asking.id);
    expect((await settled(later.id)).result).toBe('later');
    expect(await job(asking.id)).toMatchObject({ status: 'cancelled', result: null });
  });
});
