import type { TokenTotals } from '@/lib/types/run-events';
import { totalsText } from './token-totals';

/** A run's token totals from its recorded model calls, with a note when some calls reported no usage. */
export function RunTotals({ totals }: { totals: TokenTotals }) {
  const { main, note } = totalsText(totals);
  return (
    <p className="text-xs text-zinc-700 dark:text-zinc-300">
      <span className="sr-only">Token totals: </span>
      {main}
      {note ? <span className="block text-zinc-500 dark:text-zinc-400">{note}</span> : null}
    </p>
  );
}
