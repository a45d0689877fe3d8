import { describe, expect, it } from 'vitest';
import type { ApiJob } from '@/lib/types/team';
import { getActivity } from '@/server/teams/activity';
import { sendRequest } from '@/server/teams/requests';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

withScheduler();

const jobOf = async (ownerId: string, teamId: string, jobId: string, details = true) =>
  ((await getActivity(ownerId, teamId, { limit: 50, offset: 0, details })) as { jobs: ApiJob[] }).jobs.find((j) => j.id === jobId)!;

describe('a team card’s result: each citation marked resolved or not against the member run’s receipts', () => {
  it('resolved: the right id and tool; not resolved: a wrong id, a wrong tool, an id only another run has', async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id, ['Calc', 'Clock'], { toolGroups: ['utility'] });
    const [calc, clock] = team.members;
    // Another run (the Clock member's) has r1 current_time and r2 current_time.
    const other = (await sendRequest(ann.id, team.id, { memberIds: [clock!.id], text: '/call current_time {}\n/call current_time {}\n/reply ok', draftKey: 'other' })).jobs[0]!;
    expect((await settled(other.id)).status).toBe('completed');

    const text = ['/call calculator {"expression":"6*7"}', '/reply 42 [r1 calculator], also [r3 calculator], [r1 current_time] and [r2 current_time]'].join('\n');
    const asked = (await sendRequest(ann.id, team.id, { memberIds: [calc!.id], text, draftKey: 'calc' })).jobs[0]!;
    expect((await settled(asked.id)).status).toBe('completed');

    const card = await jobOf(ann.id, team.id, asked.id);
    expect(card.result).toContain('[r1 calculator]');
    expect(card.citations).toEqual([
      { id: 'r1', tool: 'calculator', resolved: true },
      { id: 'r3', tool: 'calculator', resolved: false },
      { id: 'r1', tool: 'current_time', resolved: false },
      { id: 'r2', tool: 'current_time', resolved: false },
    ]);
    // The other member's own card resolves nothing: its result cites nothing.
    expect((await jobOf(ann.id, team.id, other.id)).citations).toEqual([]);
    // Without details no result is sent, so no citations either.
    expect(await jobOf(ann.id, team.id, asked.id, false)).not.toHaveProperty('citations');
  });

  it('the member run is told the report contract; a plain conversation run is not', async () => {
    const { systemPrompt } = await import('@/server/agents/graph');
    const { promptOptionsFor } = await import('@/server/agents/receipts/report-contract');
    const agent = { name: 'Calc', instructions: 'Be brief.' };
    const teamJob = systemPrompt(agent, promptOptionsFor({ ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a', teamId: 't', jobId: 'j', memberId: 'm' }));
    const child = systemPrompt(agent, promptOptionsFor({ ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a', delegationId: 'd' }));
    const plain = systemPrompt(agent, promptOptionsFor({ ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a' }));
    for (const prompt of [teamJob, child]) {
      expect(prompt).toContain('cite the receipt of that call');
      expect(prompt).toContain('say so plainly');
      expect(prompt).toContain('<ensemble-criteria>');
    }
    expect(plain).not.toContain('Report contract');
    expect(plain).toBe(systemPrompt(agent));
  });
});
