import 'server-only';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { LIMITS } from '@/lib/limits';
import { contentText, ensembleMeta } from '../messages';
import { runTokenTotals } from '../observe/run-lifecycle';
import type { RunIds } from '../observe/run-ids';
import { isGuardNote } from './notes';
import type { ResponseGuard } from './types';
import { withoutToolCalls } from './without-tool-calls';

export const TOKEN_GUARD = 'token-budget';

/**
 * A budget the run shares with other runs: a delegation tree spends its root's (server/agents/delegation/tree-budget.ts).
 * What it allows, and what the tree's other runs have spent.
 */
export type SharedTokenBudget = { budget: number; spentElsewhere: number };
/** The run's shared budget, or null when it shares none. */
export type SharedTokenBudgetOf = (runId: string) => Promise<SharedTokenBudget | null>;

// Delegation plugs its tree budget in at start-up (server/agents/delegation/register.ts), so this guard never imports
// delegation. One slot per process, on globalThis (route bundles may load their own copy of this module).
const shared = globalThis as unknown as { __ensembleSharedTokenBudget?: SharedTokenBudgetOf };

/** Set (or replace) how a run's shared budget is found; without one, every run's own budget is the whole story. */
export function registerSharedTokenBudget(of: SharedTokenBudgetOf): void {
  shared.__ensembleSharedTokenBudget = of;
}

/** The agent's own budget when it is in range, else the instance default (LIMITS.run). */
export function tokenBudgetOf(agent: { tokenBudget?: number | null }): number {
  const own = agent.tokenBudget;
  const { min, max } = LIMITS.run.tokenBudget;
  return own != null && Number.isInteger(own) && own >= min && own <= max ? own : LIMITS.run.defaultTokenBudget;
}

/** Input + output tokens the provider reported for this response; null when it reported none. */
export function reportedTokens(message: BaseMessage): number | null {
  const usage = (message as AIMessage).usage_metadata as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  const input = typeof usage?.input_tokens === 'number' ? usage.input_tokens : null;
  const output = typeof usage?.output_tokens === 'number' ? usage.output_tokens : null;
  return input === null && output === null ? null : (input ?? 0) + (output ?? 0);
}

/**
 * A call the provider reported no usage for is not free: it is estimated as characters ÷ 4 of the thread it
 * answered plus its own text (the scripted model's rule), and the estimate is kept on the response's server meta
 * (`tokenEstimate`, with the run) so later turns of the run count it too. The recorded model.call event still
 * says "not reported": the estimate is the guard's, never passed off as the provider's figure.
 */
export function estimateTokens(messages: readonly BaseMessage[], response: BaseMessage): number {
  const chars = messages.reduce((n, m) => n + contentText(m.content).length, 0) + contentText(response.content).length;
  return Math.ceil(chars / 4);
}

type Estimate = { runId: string; tokens: number };

const estimateOf = (m: BaseMessage): Estimate | undefined => {
  const e = ensembleMeta(m)?.tokenEstimate as Estimate | undefined;
  return e && typeof e.runId === 'string' && typeof e.tokens === 'number' ? e : undefined;
};

/**
 * Tokens the run has spent, this response included: what its recorded model calls reported (run events: every
 * earlier step of the run, summary calls too — the current step's own events are saved with the step, so its
 * summary call is counted from the next step on), this response's reported usage, and the estimates of calls
 * that reported none.
 */
export async function runTokensSpent(run: RunIds, messages: readonly BaseMessage[], response: AIMessage): Promise<number> {
  const estimated = messages.reduce((n, m) => n + (estimateOf(m)?.runId === run.runId ? estimateOf(m)!.tokens : 0), 0);
  const current = reportedTokens(response) ?? markEstimate(run, messages, response);
  return (await recordedTokens(run.runId)) + estimated + current;
}

/** The run's recorded tokens; a record that can't be read (a damaged checkpoint database) never breaks the run. */
async function recordedTokens(runId: string): Promise<number> {
  try {
    const totals = await runTokenTotals(runId);
    return totals.inputTokens + totals.outputTokens;
  } catch (err) {
    console.error(`[guards] could not read the recorded tokens of run ${runId}; counting this response only`, err);
    return 0;
  }
}

function markEstimate(run: RunIds, messages: readonly BaseMessage[], response: AIMessage): number {
  const tokens = estimateTokens(messages, response);
  const meta = (response.additional_kwargs.ensemble ?? {}) as Record<string, unknown>;
  response.additional_kwargs.ensemble = { ...meta, tokenEstimate: { runId: run.runId, tokens } satisfies Estimate };
  return tokens;
}

/** True when this run's token warning was already given (delivered, or waiting on an earlier response). */
function warned(messages: readonly BaseMessage[], runId: string): boolean {
  return messages.some((m) => {
    const meta = ensembleMeta(m);
    if (isGuardNote(m)) return meta?.guard === TOKEN_GUARD && meta.runId === runId;
    const pending = meta?.pendingNotes as Array<{ guard?: string; runId?: string }> | undefined;
    return Array.isArray(pending) && pending.some((n) => n.guard === TOKEN_GUARD && n.runId === runId);
  });
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The run's token budget (agent.tokenBudget ?? LIMITS.run.defaultTokenBudget), checked on each response that calls
 * tools. At LIMITS.guards.tokenWarnAt of it the agent is warned once, in a note; at 100 % the calls are removed and it
 * must answer now (stopReason token_capped; that last call is spent past the budget). Outside a recorded run
 * (inspection, capture off) nothing is counted.
 */
export const tokenGuard: ResponseGuard = {
  name: TOKEN_GUARD,
  async check({ message, messages, agent, run }) {
    if (!run) return null;
    const budget = tokenBudgetOf(agent);
    const spent = await runTokensSpent(run, messages, message);
    // A response without tool calls ends the run anyway: it is the answer, whatever it cost.
    if (!message.tool_calls?.length) return null;
    if (spent >= budget) {
      return {
        message: withoutToolCalls(message),
        stopReason: 'token_capped',
        note: `Token budget reached: this run has used ${fmt(spent)} of its ${fmt(budget)} tokens. Pending tool calls were not run. Answer now with what you have; no more tool calls.`,
      };
    }
    // A delegation tree shares its root's budget (server/agents/delegation/tree-budget.ts).
    const tree = (await shared.__ensembleSharedTokenBudget?.(run.runId)) ?? null;
    if (tree && tree.spentElsewhere + spent >= tree.budget) {
      return {
        message: withoutToolCalls(message),
        stopReason: 'token_capped',
        note: `Token budget reached: this run and the runs delegated within its tree have used ${fmt(tree.spentElsewhere + spent)} of the tree's ${fmt(tree.budget)} tokens. Pending tool calls were not run. Answer now with what you have; no more tool calls.`,
      };
    }
    if (spent < budget * LIMITS.guards.tokenWarnAt || warned(messages, run.runId)) return null;
    const percent = Math.floor((spent / budget) * 100);
    return { message, note: `Token budget warning: this run has used ${percent} % of its budget (${fmt(spent)} of ${fmt(budget)} tokens). Plan to finish soon.` };
  },
};
