import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { sendRequest } from '@/server/teams/requests';
import { readThread } from '@/server/agents/thread';
import { conversationWith, send } from '../agents/helpers';
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

describe('budgets: one token budget per delegation tree, the root run’s', () => {
  it('a root with 1,000 tokens whose children report 5,000 each is stopped before its next tool call', async () => {
    // What must not happen: a parent multiplying its budget by delegating — its children's 10,000 tokens left out
    // of the 1,000 it may spend, so it goes on calling tools.
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { tokenBudget: 1_000 });
    const script = [
      call('/call', { description: 'a', prompt: '/tokens 5000\n/reply a' }),
      call('/also', { description: 'b', prompt: '/tokens 5000\n/reply b' }),
      '/call calculator {"expression":"6*7"}',
    ].join('\n');
    const run = await send(alice.id, conversation.id, script);
    const children = await delegationsOf(run.id);
    expect(children.map((c) => c.status)).toEqual(['completed', 'completed']);
    for (const c of children) expect(await runRow(c.childRunId!)).toMatchObject({ inputTokens: 3750, outputTokens: 1250 });
    expect(await runRow(run.id)).toMatchObject({ status: 'success', stopReason: 'token_capped' });
    const tools = (await readThread(conversation.id)).messages.filter((m) => m.getType() === 'tool').map((m) => m.name);
    expect(tools).toEqual(['task', 'task']);
  });
});
