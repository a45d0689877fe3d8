import { NANO, formatUsdText, parseDecimal } from '@/lib/money';

/**
 * A cost beside tokens (ADR 048): "$0.0042", or "—" for an unknown cost, which a screen reader hears as "cost
 * unknown" (never $0: an unknown price or unreported usage is not free). `unknownRuns` adds "+ n unknown" to a sum;
 * a sum whose only known part is $0 is unknown as a whole (as a team's spend is, lib/budget-state.ts), rather than
 * "$0.00 + 3 unknown", which reads as free.
 */
export function CostText({ usd, unknownRuns = 0, pending = false }: { usd: string | null; unknownRuns?: number; pending?: boolean }) {
  if (pending) {
    return (
      <span title="Priced when the run finishes">
        <span aria-hidden>…</span>
        <span className="sr-only">cost when the run finishes</span>
      </span>
    );
  }
  if (usd === null || (unknownRuns > 0 && parseDecimal(usd, NANO) === 0)) {
    return (
      <span title="Cost unknown: no price for the model, or the provider reported no usage">
        <span aria-hidden>—</span>
        <span className="sr-only">cost unknown</span>
      </span>
    );
  }
  return (
    <span>
      {formatUsdText(usd)}
      {unknownRuns > 0 ? (
        <span className="text-amber-700 dark:text-amber-300" title="Runs whose cost is unknown are not counted">
          {' '}+ {unknownRuns.toLocaleString('en-US')} unknown
        </span>
      ) : null}
    </span>
  );
}
