import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { delegationsOf, runRow, withDelegationScheduler } from './helpers';

withDelegationScheduler();

const call = (verb: string, args: Record<string, unknown>) => `${verb} task ${JSON.stringify(args)}`;

describe('budgets: a team at its token budget starts no new children', () => {
  it('a child’s tokens count for the team; once the budget is used up the next task call is refused', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Lead', 'Other']);
    await writeTx(async (tx) => {
      await tx.update(schema.teams).set({ tokenBudget: 1_000 }).where(eq(schema.teams.id, team.id));
    });
    const script = [call('/call', { description: 'spender', prompt: '/tokens 2000\n/reply spent' }), call('/call', { description: 'too late', prompt: '/reply never' })].join('\n');
    const sent = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: script, draftKey: 'budget' })).jobs[0]!;
    const done = await until(
      async () => {
        const row = await job(sent.id);
        return ['completed', 'failed', 'cancelled'].includes(row.status) && row;
      },
      20_000,
      'job finished',
    );
    const [spender, late] = await delegationsOf(done.runId!);
    expect(spender).toMatchObject({ status: 'completed', teamId: team.id });
    expect(await runRow(spender!.childRunId!)).toMatchObject({ teamId: team.id, inputTokens: 1500, outputTokens: 500 });
    // What must not happen: a new child spending past the team's budget.
    expect(late).toMatchObject({ status: 'failed', childRunId: null, error: expect.stringContaining('token budget') });
    expect((late!.spec as { refused: { error: string } }).refused.error).toBe('budget_reached');
  });
});
