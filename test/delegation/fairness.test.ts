import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { delegationPort } from '@/server/agents/delegation/port';
import { registerDelegation } from '@/server/agents/delegation/register';
import { start } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { loadSchedulingView } from '@/server/scheduler/view';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { conversationWith, finished } from '../agents/helpers';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { delegationsOf } from './helpers';

// The run below starts before the scheduler does: delegation is plugged into the run core first, as start-up does.
beforeAll(registerDelegation);

afterAll(async () => {
  await stopScheduler();
});

describe('children count against their owner’s share of the slots', () => {
  it('an owner with eight children queued holds at most six slots while another owner has work; that work is admitted at once', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    // No scheduler yet: alice's run asks for eight children, which wait queued; bob's request waits too.
    const { conversation } = await conversationWith(alice.id, { maxConcurrentChildren: 8, maxChildren: 8 });
    const lines = Array.from({ length: 8 }, (_, i) => `${i === 0 ? '/call' : '/also'} task ${JSON.stringify({ description: `c${i}`, prompt: `/sleep 800\n/reply c${i}` })}`);
    const { run } = await start(alice.id, conversation.id, { text: lines.join('\n') }, { idempotencyKey: 'fair' });
    await until(async () => (await delegationsOf(run.id)).length === 8, 10_000, 'eight children queued');
    const { team } = await makeTeam(bob.id, ['Solo', 'Pair']);
    const bobs = (await sendRequest(bob.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply bob served', draftKey: 'b' })).jobs[0]!;

    startScheduler(teamJobs, { tickMs: 50, maxActive: 8, delegations: delegationPort });
    // What must not happen: alice's children filling every slot while bob waits.
    let aliceMax = 0;
    await until(async () => {
      aliceMax = Math.max(aliceMax, (await loadSchedulingView()).heldSlots.get(alice.id) ?? 0);
      return (await job(bobs.id)).status === 'completed';
    }, 15_000, 'bob served');
    expect(aliceMax).toBeLessThanOrEqual(6);
    // Bob was served while some of alice's children were still unfinished.
    expect((await getDb().select().from(schema.delegations).where(eq(schema.delegations.parentRunId, run.id))).some((d) => d.status !== 'completed')).toBe(true);
    expect((await finished(run.id, 20_000)).status).toBe('success');
    expect((await delegationsOf(run.id)).every((d) => d.status === 'completed')).toBe(true);
  }, 40_000);
});
