import type { TokenTotals } from '@/lib/types/run-events';
import { CostText } from '@/components/ui/cost-text';
import { totalsText } from './token-totals';

/**
 * A run's token totals from its recorded model calls, with a note when some calls reported no usage, and its cost
 * once it finished (priced then: ADR 048), "unknown" when no price or usage was known.
 */
export function RunTotals({ totals }: { totals: TokenTotals & { cost?: string | null; finishedAt?: string | null } }) {
  const { main, note } = totalsText(totals);
  const finished = totals.finishedAt != null;
  return (
    <p className="text-xs text-zinc-700 dark:text-zinc-300">
      <span className="sr-only">Token totals: </span>
      {main}
      {finished ? (
        <>
          {' · '}
          {totals.cost == null ? <span aria-hidden>cost </span> : <span className="sr-only">cost: </span>}
          <CostText usd={totals.cost ?? null} />
        </>
      ) : null}
      {note ? <span className="block text-zinc-500 dark:text-zinc-400">{note}</span> : null}
    </p>
  );
}
