'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { LIMITS } from '@/lib/limits';
import type { ApiTeam } from '@/lib/types/team';
import { CloneTeamDialog } from './team-dialogs-lazy';

const box =
  'flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-2 text-sm ' +
  'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100';

/**
 * Beside the composer once the team has taken its LIMITS.team.requests requests (or a send was just refused for it):
 * says so, and offers the way on — a clone with the same members and goal and a fresh request capacity.
 */
export function TeamCapacityNotice({ team, refused }: { team: ApiTeam; refused: boolean }) {
  const [open, setOpen] = useState(false);
  if (!refused && team.requestCount < LIMITS.team.requests) return null;
  return (
    <section role="status" aria-label="Request limit" className={box}>
      <p className="min-w-0">
        <span className="font-semibold">This team reached its limit of {LIMITS.team.requests} requests.</span> It takes no new ones;
        clone it to keep working with the same members and goal.
      </p>
      <Button size="sm" onClick={() => setOpen(true)}>
        Clone team
      </Button>
      {open ? <CloneTeamDialog team={team} open onClose={() => setOpen(false)} /> : null}
    </section>
  );
}
