import { describe, expect, it } from 'vitest';
import { latestRun } from '@/server/agents/runs';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../support/teams';
import { settled, withScheduler } from '../support/scheduler';
import { makeUser } from '../support/users';
import { eventsOf, expectDense, typesOf } from './helpers';

withScheduler();

describe('run events of team job runs', () => {
  it("a member's job run records its steps like a conversation run, and its totals come from them", async () => {
    const ann = await makeUser('ann');
    const { team } = await makeTeam(ann.id, ['Writer', 'Critic']);
    const member = team.members[0]!;
    const { jobs } = await sendRequest(ann.id, team.id, { memberIds: [member.id], text: 'Draft it\n/call calculator {"expression":"2*21"}\n/reply Drafted', draftKey: 'd1' });
    expect((await settled(jobs[0]!.id)).status).toBe('completed');
    const run = (await latestRun(member.conversationId!))!;
    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    expect(events[3]).toMatchObject({ tool: 'calculator', result: '42' });
    expect(events.at(-1)).toMatchObject({ outcome: 'completed' });
    expect(run.modelCalls).toBe(2);
  });
});
