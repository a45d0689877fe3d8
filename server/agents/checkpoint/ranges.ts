import 'server-only';

/**
 * A checkpoint's message list as runs of consecutive message positions: [[1, 40]] is positions 1…40 in order.
 * An append-only conversation stays one run however long it gets; a replaced or removed message splits it.
 */
export type PositionRuns = Array<[first: number, last: number]>;

/** Positions (in list order) → runs of consecutive ascending positions. */
export function toRuns(positions: readonly number[]): PositionRuns {
  const runs: PositionRuns = [];
  for (const p of positions) {
    const last = runs.at(-1);
    if (last && p === last[1] + 1) last[1] = p;
    else runs.push([p, p]);
  }
  return runs;
}

/** Runs → positions, in list order. */
export function fromRuns(runs: PositionRuns): number[] {
  const out: number[] = [];
  for (const [first, last] of runs) for (let p = first; p <= last; p++) out.push(p);
  return out;
}

/** Parse the stored text of a run list, refusing anything that is not one (a corrupt row must not load as empty). */
export function parseRuns(text: string): PositionRuns {
  const value: unknown = JSON.parse(text);
  const ok =
    Array.isArray(value) &&
    value.every((r) => Array.isArray(r) && r.length === 2 && Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]) && r[0] <= r[1]);
  if (!ok) throw new Error(`Corrupt message positions in a checkpoint: ${text.slice(0, 80)}`);
  return value as PositionRuns;
}
