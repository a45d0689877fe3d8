'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { teamBudgetState, usageText } from '@/lib/budget-state';
import type { ApiTeam } from '@/lib/types/team';
import { TeamBudgetDialog } from './team-budget-dialog-lazy';

const TONE = {
  none: 'text-zinc-600 dark:text-zinc-400',
  ok: 'text-zinc-600 dark:text-zinc-400',
  warning: 'text-amber-700 dark:text-amber-300',
  reached: 'text-red-700 dark:text-red-300',
} as const;

/**
 * The team header's "12,340 / 50,000 tokens" (tokens of finished runs), with the way to set or change the budget.
 * Not a live region: it changes with every finished run, and a screen reader would read each one out. Nearing and
 * reaching the budget are announced once, by TeamBudgetNotice.
 */
export function TeamBudgetMeter({ team, onChanged }: { team: ApiTeam; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const state = teamBudgetState(team.tokensUsed, team.tokenBudget);
  return (
    <div className="flex items-center gap-2">
      <p className={`text-sm tabular-nums ${TONE[state]}`}>
        <span className="sr-only">Token usage: </span>
        {usageText(team.tokensUsed, team.tokenBudget)}
      </p>
      <Button variant="ghost" size="sm" onClick={() => setOpen(true)}>
        {team.tokenBudget === null ? 'Set budget' : 'Change budget'}
      </Button>
      {open ? <TeamBudgetDialog team={team} open onClose={() => setOpen(false)} onSaved={onChanged} /> : null}
    </div>
  );
}
