import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { approvalMatcher } from '@/lib/mcp/approval-rule';
import { TOOL_GROUP_NAMES } from '@/lib/tool-groups';
import type { GraphAgent, RunContext } from '../run-types';

/** What a tool group may read of the agent as the run runs it (a group the agent's own settings select). */
export type ToolGroupAgent = Pick<GraphAgent, 'toolGroups' | 'mcpTools' | 'skills'>;

/**
 * May read the database (the delegate and team groups do), so it may answer a promise. `agent` is absent where only
 * a run's context is known.
 */
export type ToolGroupFactory = (context: RunContext, agent?: ToolGroupAgent) => StructuredToolInterface[] | Promise<StructuredToolInterface[]>;

// Route bundles and instrumentation may load separate copies of this module: one registry per process.
const g = globalThis as unknown as { __ensembleToolGroups?: Map<string, ToolGroupFactory>; __ensembleSelectedToolGroups?: Set<string> };
const groups = (g.__ensembleToolGroups ??= new Map());
/** Groups built whatever the agent's group allowlist says: their factory picks tools from the agent's own settings. */
const selectedByAgent = (g.__ensembleSelectedToolGroups ??= new Set());

/**
 * Register (or replace) the tools of a group named in lib/tool-groups.ts. The factory runs once per run with that
 * run's context; the team layer registers `team` this way. A group `selectedByAgent` (the MCP tools an agent
 * chose: server/mcp/tool-group) is not in the allowlist's catalog: it is built for every run, and its factory
 * offers what the agent's settings select (often nothing).
 */
export function registerToolGroup(name: string, factory: ToolGroupFactory, options: { selectedByAgent?: boolean } = {}): void {
  groups.set(name, factory);
  if (options.selectedByAgent) selectedByAgent.add(name);
  else selectedByAgent.delete(name);
}

/**
 * The registered groups, those of lib/tool-groups.ts first in its order, then any other in registration order: an
 * empty allowlist offers its tools in the same order whichever domain registered its group first.
 */
export function registeredToolGroups(): string[] {
  const known: readonly string[] = TOOL_GROUP_NAMES;
  return [...known.filter((name) => groups.has(name)), ...[...groups.keys()].filter((name) => !known.includes(name))];
}

/** The tools an agent may use: its allowlisted groups that are registered (an empty allowlist = all of them). */
export async function toolsForAgent(allowlist: readonly string[], context: RunContext, agent?: ToolGroupAgent): Promise<StructuredToolInterface[]> {
  return (await groupedToolsForAgent(allowlist, context, agent)).map((entry) => entry.tool);
}

type GroupedTools = Array<{ tool: StructuredToolInterface; group: string }>;

/**
 * What was built for a run's context object, so the assembly record and the graph of one run share one build (the
 * factories query the database; docs/performance.md, "A cheaper job"). Valid while the same factories are asked.
 * The build in progress is kept, so two asks at once share it too; a build that fails is forgotten.
 */
const builtFor = new WeakMap<RunContext, { factories: ToolGroupFactory[]; agent: ToolGroupAgent | undefined; tools: Promise<GroupedTools> }>();

/** The same tools, each with the group it came from (a name two groups offer is the first group's). */
export function groupedToolsForAgent(allowlist: readonly string[], context: RunContext, agent?: ToolGroupAgent): Promise<GroupedTools> {
  const allowed = allowlist.length ? allowlist.filter((name) => groups.has(name)) : registeredToolGroups();
  const names = [...allowed, ...[...selectedByAgent].filter((name) => groups.has(name) && !allowed.includes(name))];
  const factories = names.map((group) => groups.get(group)!);
  const built = builtFor.get(context);
  if (built && built.agent === agent && built.factories.length === factories.length && built.factories.every((f, i) => f === factories[i])) return built.tools;
  const entry = { factories, agent, tools: buildGroupedTools(names, factories, context, agent) };
  builtFor.set(context, entry);
  // The caller gets the failure from the promise returned; this only drops the entry.
  void entry.tools.catch(() => {
    if (builtFor.get(context) === entry) builtFor.delete(context);
  });
  return entry.tools;
}

async function buildGroupedTools(names: readonly string[], factories: readonly ToolGroupFactory[], context: RunContext, agent: ToolGroupAgent | undefined): Promise<GroupedTools> {
  const tools: GroupedTools = [];
  // One group after another, in the allowlist's order (as the tools are offered).
  for (const [i, factory] of factories.entries()) {
    for (const tool of await factory(context, agent)) tools.push({ tool, group: names[i]! });
  }
  const seen = new Set<string>();
  // A run's tool filter (server-written context; delegation writes it for a child): the same tools vanish from its
  // prompt, its execution and its assembly record.
  const allow = Array.isArray(context.toolAllowlist) ? new Set<unknown>(context.toolAllowlist) : null;
  // The deny list may hold an MCP server rule (a parent's "ask before every tool of this server": ADR 057).
  const deny = Array.isArray(context.toolDenylist) ? approvalMatcher(context.toolDenylist.filter((n): n is string => typeof n === 'string')) : null;
  return tools.filter(({ tool }) => !seen.has(tool.name) && seen.add(tool.name) && (!allow || allow.has(tool.name)) && !deny?.(tool.name));
}

/** The run context a tool was called with; throws when a tool runs outside a run. */
export function runContext(config: RunnableConfig | undefined): RunContext {
  const context = config?.configurable?.ensemble as RunContext | undefined;
  if (!context || typeof context.ownerId !== 'string' || typeof context.conversationId !== 'string') {
    throw new Error('This tool can only run inside an Ensemble run');
  }
  return context;
}
