'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { teamBudgetStanding } from '@/lib/budget-state';
import type { ApiTeam } from '@/lib/types/team';
import { TeamBudgetDialog } from './team-budget-dialog-lazy';

const TONE = {
  none: 'text-zinc-600 dark:text-zinc-400',
  ok: 'text-zinc-600 dark:text-zinc-400',
  warning: 'text-amber-700 dark:text-amber-300',
  reached: 'text-red-700 dark:text-red-300',
} as const;

/**
 * The team header's "12,340 / 50,000 tokens · $0.12" or "$1.23 / $10.00 · 12,340 tokens" (finished runs; ADR 048),
 * with the way to set or change the budget.
 * Not a live region: it changes with every finished run, and a screen reader would read each one out. Nearing and
 * reaching the budget are announced once, by TeamBudgetNotice.
 */
export function TeamBudgetMeter({ team, onChanged }: { team: ApiTeam; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const standing = teamBudgetStanding(team);
  return (
    <div className="flex items-center gap-2">
      <p className={`text-sm tabular-nums ${TONE[standing.state]}`}>
        <span className="sr-only">{standing.kind === 'money' ? 'Spend: ' : 'Token usage: '}</span>
        {standing.usage}
      </p>
      {/* The other measure in its own paragraph: "Token usage: …" keeps reading exactly as before (ADR 048). */}
      <p className="text-sm text-zinc-500 tabular-nums dark:text-zinc-400">
        <span aria-hidden>· </span>
        <span className="sr-only">{standing.kind === 'money' ? 'Tokens: ' : 'Cost: '}</span>
        {standing.beside}
        {/* "cost unknown" needs no "(partly unknown)" beside it; a screen reader still hears why. */}
        {standing.unknownNote && standing.costWhollyUnknown ? <span className="sr-only">: {standing.unknownNote}</span> : null}
        {standing.unknownNote && !standing.costWhollyUnknown ? (
          <span className="text-amber-700 dark:text-amber-300" title={standing.unknownNote}>
            {' '}(partly unknown<span className="sr-only">: {standing.unknownNote}</span>)
          </span>
        ) : null}
      </p>
      <Button variant="ghost" size="sm" onClick={() => setOpen(true)}>
        {standing.kind === null ? 'Set budget' : 'Change budget'}
      </Button>
      {open ? <TeamBudgetDialog team={team} open onClose={() => setOpen(false)} onSaved={onChanged} /> : null}
    </div>
  );
}
