import { describe, expect, it } from 'vitest';
import { teamBudgetStanding } from '@/lib/budget-state';
import { teamRuns } from '@/server/teams/runs-timeline';
import { seedRun } from '../budgets/support';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

/**
 * The Runs timeline shows cost beside tokens (ADR 048): each finished run's recorded cost (null when unknown),
 * and per member and for the team the known costs summed exactly, with runs of unknown cost counted apart.
 */
const window = () => ({ from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });

describe('the Runs timeline’s costs', () => {
  it('per run, per member and for the team; unknown costs are counted apart, never added as $0', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id, ['A', 'B']);
    const [a, b] = team.members;
    const priced1 = await seedRun({ ownerId: owner.id, conversationId: a!.conversationId!, tokens: 100, teamId: team.id, costNanos: 1_500_000 });
    const priced2 = await seedRun({ ownerId: owner.id, conversationId: a!.conversationId!, tokens: 100, teamId: team.id, costNanos: 2_500_000 });
    const unknown = await seedRun({ ownerId: owner.id, conversationId: b!.conversationId!, tokens: 100, teamId: team.id, costNanos: null });
    const data = await teamRuns(owner.id, team.id, window());
    const cost = Object.fromEntries(data.runs.map((r) => [r.runId, r.cost]));
    expect(cost).toEqual({ [priced1]: '0.0015', [priced2]: '0.0025', [unknown]: null });
    expect(data.members.map((m) => [m.id, m.cost])).toEqual([
      [a!.id, { usd: '0.004', unknownRuns: 0 }],
      [b!.id, { usd: '0.00', unknownRuns: 1 }],
    ]);
    expect(data.cost).toEqual({ usd: '0.004', unknownRuns: 1 });
  });
});

describe('teamBudgetStanding (the header and notices)', () => {
  const team = { tokenBudget: null, tokensUsed: 12_340, moneyBudget: null, spent: '0.00', unknownCostRuns: 0 };

  it('a token budget shows tokens against it and the cost beside', () => {
    expect(teamBudgetStanding({ ...team, tokenBudget: 50_000, spent: '0.12' })).toEqual({
      kind: 'tokens',
      state: 'ok',
      usage: '12,340 / 50,000 tokens',
      money: null,
      beside: '$0.12',
      percent: 24,
      unknownNote: null,
      costWhollyUnknown: false,
    });
  });

  it('a money budget: warning from 80 % and reached at 100 % (at the line and one nano-dollar past), tokens beside', () => {
    const money = (spent: string) => teamBudgetStanding({ ...team, moneyBudget: '10.00', spent });
    expect(money('7.999999999').state).toBe('ok');
    expect(money('8.00').state).toBe('warning');
    expect(money('10.00')).toMatchObject({ kind: 'money', state: 'reached', usage: '$10.00 / $10.00', money: { spent: '$10.00', budget: '$10.00' }, beside: '12,340 tokens', percent: 100 });
    expect(money('10.000000001').state).toBe('reached');
  });

  it('without a budget: the spend, or "cost unknown" when nothing known was spent and some runs are unknown — never $0', () => {
    expect(teamBudgetStanding(team)).toMatchObject({ kind: null, state: 'none', usage: '12,340 tokens', beside: '$0.00' });
    expect(teamBudgetStanding({ ...team, unknownCostRuns: 2 })).toMatchObject({ beside: 'cost unknown', unknownNote: '2 runs of unknown cost are not counted', costWhollyUnknown: true });
    expect(teamBudgetStanding({ ...team, spent: '1.50', unknownCostRuns: 1 })).toMatchObject({ beside: '$1.50 known', unknownNote: '1 run of unknown cost is not counted', costWhollyUnknown: false });
  });
});
