import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TeamBudgetMeter } from '@/components/teams/team-budget-meter';
import type { ApiTeam } from '@/lib/types/team';

// The team header's usage line. A team whose runs all use the built-in scripted model (no price) has a wholly unknown
// cost: the line must say so once ("cost unknown"), not contradict itself with "cost unknown (partly unknown)".
const team = (over: Partial<ApiTeam>) =>
  ({ tokenBudget: null, tokensUsed: 2_624, moneyBudget: null, spent: '0.00', unknownCostRuns: 0, ...over }) as ApiTeam;
const visible = (html: string) => html.replace(/<span class="sr-only">[^<]*<\/span>/g, '').replace(/<[^>]+>/g, '');
const render = (over: Partial<ApiTeam>) => renderToStaticMarkup(createElement(TeamBudgetMeter, { team: team(over), onChanged: () => {} }));

describe('the team budget meter', () => {
  it('says "cost unknown" alone when nothing known was spent, and tells a screen reader why', () => {
    const html = render({ unknownCostRuns: 3 });
    expect(visible(html)).toContain('· cost unknown');
    expect(html).not.toContain('partly unknown');
    expect(html).toContain('<span class="sr-only">: 3 runs of unknown cost are not counted</span>');
  });

  it('marks a known spend that leaves some runs out as partly unknown', () => {
    const html = render({ spent: '1.50', unknownCostRuns: 1 });
    expect(visible(html)).toContain('· $1.50 known (partly unknown)');
    expect(html).toContain('1 run of unknown cost is not counted');
  });

  it('shows the spend alone when every cost is known', () => {
    const html = render({ spent: '0.12' });
    expect(visible(html)).toContain('· $0.12');
    expect(html).not.toContain('unknown');
  });
});
