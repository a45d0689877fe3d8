import { describe, expect, it } from 'vitest';
import { getActivity } from '@/server/teams/activity';
import { sendRequest } from '@/server/teams/requests';
import { findRun } from '@/server/agents/run-store';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

withScheduler();

const jobIn = async (ownerId: string, teamId: string, jobId: string) => {
  const activity = await getActivity(ownerId, teamId, { limit: 50, offset: 0, details: true });
  if (activity.unchanged) throw new Error('expected jobs');
  return activity.jobs.find((j) => j.id === jobId)!;
};

describe('stop reasons on team jobs', () => {
  it('a capped member run completes its job as the run did; the activity carries the stopReason', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Looper', 'Plain'], { toolGroups: ['utility'] });
    const [looper, plain] = team.members;
    const capped = (await sendRequest(alice.id, team.id, { memberIds: [looper!.id], text: '/loop calculator {"expression":"2+2"}', draftKey: 'loop' })).jobs[0]!;
    const normal = (await sendRequest(alice.id, team.id, { memberIds: [plain!.id], text: '/reply fine', draftKey: 'plain' })).jobs[0]!;
    const done = await settled(capped.id);
    // The guard note between the turn and its answer is neither a foreign turn nor the answer.
    expect(done).toMatchObject({ status: 'completed', result: `${agents[0]!.name}: done\n[calculator] 4\n[calculator] 4` });
    expect(await findRun(done.runId!)).toMatchObject({ status: 'success', stopReason: 'loop_capped' });
    expect(await jobIn(alice.id, team.id, capped.id)).toMatchObject({ status: 'completed', stopReason: 'loop_capped' });
    await settled(normal.id);
    expect(await jobIn(alice.id, team.id, normal.id)).toMatchObject({ status: 'completed', stopReason: null });
    // Without details the job shape is unchanged (no stopReason field).
    const light = await getActivity(alice.id, team.id, { limit: 50, offset: 0, details: false });
    expect(light.unchanged ? [] : light.jobs.map((j) => 'stopReason' in j)).toEqual([false, false]);
  });

  it('a capped run without an answer fails its job with the reason; a handled model failure fails it with the error', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Short', 'Broken'], { toolGroups: ['utility'], maxTurns: 2 });
    const [short, broken] = team.members;
    const turns = (await sendRequest(alice.id, team.id, { memberIds: [short!.id], text: '/loop calculator {"expression":"1"}', draftKey: 't' })).jobs[0]!;
    const failing = (await sendRequest(alice.id, team.id, { memberIds: [broken!.id], text: '/fail provider said 503', draftKey: 'f' })).jobs[0]!;
    expect(await settled(turns.id)).toMatchObject({ status: 'failed', error: 'Stopped after 2 model turns (max turns)' });
    expect(await jobIn(alice.id, team.id, turns.id)).toMatchObject({ status: 'failed', stopReason: 'turn_capped' });
    expect(await settled(failing.id)).toMatchObject({ status: 'failed', error: 'provider said 503' });
    expect(await jobIn(alice.id, team.id, failing.id)).toMatchObject({ status: 'failed', error: 'provider said 503', stopReason: null });
  });
});
