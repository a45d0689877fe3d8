import 'server-only';
import { isRunActive } from '@/lib/types/conversation';
import { statement } from '@/server/db/statement';
import { tokenBudgetOf } from '../guards/tokens';
import { runTokenTotals } from '../observe/run-lifecycle';

/**
 * One token budget per delegation tree: the root run's. Every run of the tree (the root, its children, theirs)
 * spends from it, so a parent can't multiply its budget by delegating (a root with 1,000 tokens whose children spend
 * 5,000 each is stopped). Each run's own budget still applies to itself as well.
 */
export type TreeBudget = { rootRunId: string; budget: number; spentElsewhere: number };

/** How far up a parent chain is followed: well past any depth LIMITS.delegation allows. */
const MAX_CHAIN = 32;

const parentOf = statement(`select parent_run_id as "parentRunId" from runs where id = ?`);
const descendants = statement(
  `with recursive tree(id) as (
     select id from runs where parent_run_id = ?
     union all
     select r.id from runs r join tree t on r.parent_run_id = t.id
   )
   select r.id, r.status, r.input_tokens as "inputTokens", r.output_tokens as "outputTokens"
     from runs r join tree t on r.id = t.id`,
);
const rootRun = statement(
  `select r.input_tokens as "inputTokens", r.output_tokens as "outputTokens", r.status, r.assembly, a.token_budget as "tokenBudget"
     from runs r left join conversations c on c.id = r.conversation_id left join agents a on a.id = c.agent_id
    where r.id = ?`,
);

type TokenRow = { id?: string; status: string; inputTokens: number | null; outputTokens: number | null };

/** A finished run's recorded totals; an unfinished one's from its model calls so far (it writes them when it ends). */
async function spentBy(runId: string, row: TokenRow): Promise<number> {
  if (!isRunActive(row.status as never)) return (row.inputTokens ?? 0) + (row.outputTokens ?? 0);
  const totals = await runTokenTotals(runId);
  return totals.inputTokens + totals.outputTokens;
}

/** The root of the run's tree (itself when it has no parent). */
async function rootOf(runId: string): Promise<string> {
  let id = runId;
  for (let i = 0; i < MAX_CHAIN; i++) {
    const parent = (await parentOf.get<{ parentRunId: string | null }>(id))?.parentRunId;
    if (!parent) return id;
    id = parent;
  }
  return id;
}

/** The root's budget as the root runs under it: the one its assembly recorded at its start, else its agent's now. */
function budgetOf(root: { assembly: unknown; tokenBudget: number | null }): number {
  const assembly = typeof root.assembly === 'string' ? (JSON.parse(root.assembly) as unknown) : root.assembly;
  const recorded = (assembly as { descriptor?: { limits?: { tokenBudget?: unknown } } } | null)?.descriptor?.limits?.tokenBudget;
  return typeof recorded === 'number' ? recorded : tokenBudgetOf({ tokenBudget: root.tokenBudget });
}

/**
 * The tree's budget and what every run of it except `runId` has spent; null when the run is alone (no parent, no
 * children): then its own budget is the whole story.
 */
export async function treeBudget(runId: string): Promise<TreeBudget | null> {
  const rootRunId = await rootOf(runId);
  const below = await descendants.all<TokenRow & { id: string }>(rootRunId);
  if (rootRunId === runId && !below.length) return null;
  const root = await rootRun.get<TokenRow & { assembly: unknown; tokenBudget: number | null }>(rootRunId);
  if (!root) return null;
  let spentElsewhere = rootRunId === runId ? 0 : await spentBy(rootRunId, root);
  for (const row of below) if (row.id !== runId) spentElsewhere += await spentBy(row.id, row);
  return { rootRunId, budget: budgetOf(root), spentElsewhere };
}
