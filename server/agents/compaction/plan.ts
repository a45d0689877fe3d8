import 'server-only';

/**
 * Where to cut a conversation for compaction: pure (no I/O, no clock), property-tested against an oracle
 * (test/compaction/plan.test.ts).
 *
 * The model receives `fixed` tokens (system prompt, and the previous summary when there is one) plus the items from
 * `from` on. Once that passes `threshold`, the items before the cut are summarized and the tail [cut, end) stays
 * verbatim. The cut is the latest position such that
 * - the tail holds at least `keep` tokens (all of [from, end) when it holds fewer: then there is nothing to cut), and
 * - no tool result in the tail answers a call made in the summarized part: a model never receives a tool result
 *   without its tool call (the cut moves back to the assistant message that made the call).
 * A cut at `from` would summarize nothing: then there is no plan.
 */
export type PlanItem = {
  tokens: number;
  /** An assistant message's tool call ids. */
  calls?: readonly string[];
  /** A tool result's tool call id. */
  resultOf?: string;
};

export type PlanInput = { items: readonly PlanItem[]; from: number; fixed: number; threshold: number; keep: number };

/** The cut index, or null when the input is within the threshold or nothing can be cut. */
export function planCompaction({ items, from, fixed, threshold, keep }: PlanInput): number | null {
  let total = fixed;
  for (let i = from; i < items.length; i++) total += items[i]!.tokens;
  if (total <= threshold) return null;

  let cut = items.length;
  for (let tail = 0; cut > from && tail < keep; ) tail += items[--cut]!.tokens;

  // Which message made each call, for the calls in the view.
  const callAt = new Map<string, number>();
  for (let i = from; i < items.length; i++) for (const id of items[i]!.calls ?? []) if (!callAt.has(id)) callAt.set(id, i);
  // Move the cut back before the call of any result it would orphan; earlier results joining the tail may move it
  // again. Each position is visited once: the scan only goes left.
  let earliest = cut;
  for (let i = items.length - 1; i >= from && i >= earliest; i--) {
    const resultOf = items[i]!.resultOf;
    const at = resultOf === undefined ? undefined : callAt.get(resultOf);
    if (at !== undefined && at < earliest) earliest = at;
  }
  cut = earliest;
  return cut > from ? cut : null;
}

/** The share of the threshold the verbatim tail may keep: LIMITS.compaction.keepTokens, at most half the threshold. */
export const keepTokensFor = (threshold: number, keepTokens: number): number => Math.min(keepTokens, Math.floor(threshold / 2));
