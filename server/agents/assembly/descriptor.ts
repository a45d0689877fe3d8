import 'server-only';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { AssemblyDescriptor } from '@/lib/types/assembly';
import type { Agent } from '@/server/db/schema';
import { thresholdFor } from '../compaction/model-input';
import { graphGuards, systemPrompt } from '../graph';
import { tokenBudgetOf } from '../guards/tokens';
import { promptOptionsFor } from '../receipts/report-contract';
import { runTimeLimitMinutes } from '../run-time-limit';
import { ensureBuiltinToolGroups } from '../tools/builtin';
import { isDeferredTool } from '../tools/deferred';
import type { GraphAgent, RunContext } from '../run-types';
import { attachedSkillsOf } from '../tools/attached-skills';
import { groupedToolsForAgent } from '../tools/registry';
import { unavailableToolsOf } from '../tools/unavailable';
import { appVersion } from './app-version';
import { sha256Hex } from './fingerprint';

export type AssemblyAgent = Pick<
  Agent,
  'name' | 'instructions' | 'model' | 'toolGroups' | 'approvalTools' | 'maxTurns' | 'timeLimitMinutes' | 'compactAtTokens'
> &
  Partial<Pick<Agent, 'tokenBudget'>> &
  Pick<GraphAgent, 'mcpTools' | 'skills'>;

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * How the agent is assembled for a run, from the same inputs buildAgentGraph and the executor use: the tools are
 * the ones the registry binds for this run's context (with their groups), the instructions hash is of the exact
 * system prompt text (framework text included, so a framework change shows too), the limits are the effective ones.
 */
export async function assemblyDescriptor(
  agent: AssemblyAgent,
  context: RunContext,
  /** timeLimitMinutes: a lower limit the run's setup gives it (a delegated child's: run-setup.ts). */
  options: { model?: string; timeLimitMinutes?: number } = {},
): Promise<AssemblyDescriptor> {
  ensureBuiltinToolGroups();
  const grouped = await groupedToolsForAgent(agent.toolGroups, context, agent);
  const tools = grouped.map(({ tool, group }) => ({ name: tool.name, group, ...recordedOrigin(tool) })).sort((a, b) => byCodeUnit(a.name, b.name));
  const skills = attachedSkillsOf(grouped.map((g) => g.tool));
  const unavailable = unavailableToolsOf(context);
  return {
    model: options.model ?? agent.model,
    instructionsHash: sha256Hex(systemPrompt(agent, promptOptionsFor(context), skills)),
    tools,
    approvalTools: [...new Set(agent.approvalTools)].sort(byCodeUnit),
    ...(unavailable.length ? { unavailable } : {}),
    // Absent without skills, so the fingerprints of agents without any stand.
    ...(skills.length ? { skills: skills.map((s) => ({ id: s.id, name: s.name, hash: s.hash })).sort((a, b) => byCodeUnit(a.name, b.name)) } : {}),
    limits: {
      maxTurns: agent.maxTurns,
      // A delegated child runs under min(the agent's limit, what the delegation gave it): the executor's own rule.
      timeLimitMinutes: Math.min(runTimeLimitMinutes(agent), options.timeLimitMinutes ?? Infinity),
      compactAtTokens: thresholdFor(agent),
      // The effective budget the token guard enforces (guards/tokens.ts): the agent's own or the instance default.
      tokenBudget: tokenBudgetOf(agent),
    },
    middleware: graphGuards(),
    appVersion: appVersion(),
  };
}

/**
 * A tool from outside the app (an MCP server's) names its origin and the hash of the schema it was offered with
 * (tool metadata, set by the group that built it): a server that changes the tool changes the fingerprint, and the
 * run shows "Setup changed". A deferred one says so (its schema was withheld until a search loaded it).
 */
function recordedOrigin(tool: StructuredToolInterface): { origin?: string; schemaHash?: string; deferred?: true } {
  const meta = (tool as { metadata?: Record<string, unknown> }).metadata;
  const origin = meta?.ensembleOrigin;
  const schemaHash = meta?.ensembleSchemaHash;
  if (typeof origin !== 'string' || typeof schemaHash !== 'string') return {};
  return { origin, schemaHash, ...(isDeferredTool(tool) ? { deferred: true as const } : {}) };
}
