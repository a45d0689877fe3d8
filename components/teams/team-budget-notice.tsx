'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { teamBudgetStanding } from '@/lib/budget-state';
import type { ApiTeam } from '@/lib/types/team';
import { TeamBudgetDialog } from './team-budget-dialog-lazy';

const n = (v: number) => v.toLocaleString('en-US');
const box = 'flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-2 text-sm';
const amber = `${box} border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100`;
const red = `${box} border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200`;

/**
 * Above the activity feed: a warning from LIMITS.budget.warnAt (80 %) of the team's budget, "Budget reached" (new work is
 * held, with the way to raise it) at 100 %, or the account's daily cap holding the team's work until midnight UTC.
 */
export function TeamBudgetNotice({ team, onChanged }: { team: ApiTeam; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const standing = teamBudgetStanding(team);
  const { state, usage } = standing;
  const dialog = open ? <TeamBudgetDialog team={team} open onClose={() => setOpen(false)} onSaved={onChanged} /> : null;

  if (state === 'reached') {
    return (
      <section role="status" aria-label="Team budget" className={red}>
        <div className="min-w-0">
          <p className="font-semibold">Budget reached</p>
          <p>
            {standing.money
              ? `This team has spent ${standing.money.spent} of its ${standing.money.budget} budget.`
              : `This team has used ${n(team.tokensUsed)} of its ${n(team.tokenBudget!)}-token budget.`}{' '}
            It starts no new work: new requests are refused and queued ones wait until the budget is raised. Work already
            running finishes.
          </p>
        </div>
        <Button size="sm" onClick={() => setOpen(true)}>
          Raise budget
        </Button>
        {dialog}
      </section>
    );
  }
  if (team.admissionHeld === 'daily_token_cap') {
    return (
      <section role="status" aria-label="Daily token cap" className={red}>
        <p className="min-w-0">
          <span className="font-semibold">Daily token cap reached.</span> Your account has used the tokens the server allows per
          day. Queued requests wait until midnight UTC; work already running finishes.
        </p>
      </section>
    );
  }
  if (state === 'warning') {
    return (
      <section role="status" aria-label="Team budget" className={amber}>
        <p className="min-w-0">
          <span className="font-semibold">Budget almost used:</span> {usage} ({standing.percent} %).
          At 100 % the team starts no new work.
        </p>
        <Button variant="secondary" size="sm" onClick={() => setOpen(true)}>
          Raise budget
        </Button>
        {dialog}
      </section>
    );
  }
  if (standing.kind === 'money' && standing.unknownNote) {
    return (
      <section role="status" aria-label="Team budget" className={amber}>
        <p className="min-w-0">
          <span className="font-semibold">Spend partly unknown:</span> {standing.unknownNote} in {usage}, because their model has
          no price or their provider reported no usage. An admin can set prices on the Admin page.
        </p>
      </section>
    );
  }
  return null;
}
