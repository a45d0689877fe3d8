import 'server-only';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { StopReason } from '@/lib/types/stop-reason';

/**
 * The types the run core and everything that plugs into it share (tools, guards, delegation, teams). They live here,
 * not in graph.ts, so a module that only needs a run's shape doesn't import the graph (and, through it, the guards
 * and the executor): see docs/decisions/049-run-core-seams.md.
 */

/**
 * The run's server-owned context. The runtime puts it in `config.configurable.ensemble`; tools read identity
 * (owner, conversation, team, member, job) only from here, never from arguments a model wrote.
 */
export type RunContext = {
  ownerId: string;
  conversationId: string;
  runId: string;
  agentId: string | null;
  /** Added by callers through start(..., { context }) — e.g. teamId, memberId, jobId. */
  [key: string]: unknown;
};

/** How a run ended, as run-store.ts finishRun records it (and observe/run-lifecycle.ts its end events). */
export type Outcome =
  | { status: 'success'; stopReason?: StopReason }
  | { status: 'interrupted'; interrupt: unknown }
  | { status: 'error'; error: string; stopReason?: StopReason }
  | { status: 'cancelled' };

/** The agent fields the graph needs (a row of schema.agents fits). */
export type GraphAgent = {
  id: string;
  name: string;
  instructions: string;
  model: string;
  toolGroups: string[];
  approvalTools: string[];
  maxTurns: number;
  /** Compaction threshold in tokens; null/absent = LIMITS.compaction.defaultAtTokens. */
  compactAtTokens?: number | null;
  /** Tokens one run may spend; null/absent = LIMITS.run.defaultTokenBudget (guards/tokens.ts). */
  tokenBudget?: number | null;
  /** The MCP servers and tools the agent chose (lib/schemas/agent.ts); the `mcp` tool group reads it. */
  mcpTools?: ReadonlyArray<{ serverId: string; tools: 'all' | readonly string[] }>;
  /** The owner's skills (ids) the agent may read; the `skills` tool group reads it (server/skills, ADR 061). */
  skills?: readonly string[];
};

/** Additive per-run options (a delegated child's capture tool comes in this way: run-setup.ts). */
export type BuildOptions = {
  model?: BaseChatModel;
  /** Build the model for this agent instead (a delegated child's persona replaces the prompt's instructions only). */
  modelAgent?: GraphAgent;
  nodeWork?: NodeWork;
  /** Tools beyond the agent's groups, bound and executed like them. */
  extraTools?: StructuredToolInterface[];
  /** Tools whose run ends the graph after their tools step (the run then finishes). */
  finishTools?: readonly string[];
};

/**
 * The model and tool calls of one run still executing. On abort LangGraph rejects the stream at once but does not
 * wait for the node in flight (a tool or provider call that ignores the signal keeps going); the run is not stopped
 * until that work has settled, so the executor waits on this before it records the outcome.
 */
export class NodeWork {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const forget = () => this.running.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Resolves once every tracked call has finished or failed. */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }
}
