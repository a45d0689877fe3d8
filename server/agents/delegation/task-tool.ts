import 'server-only';
import { ToolMessage } from '@langchain/core/messages';
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { parseModel } from '@/lib/models';
import { TOOL_GROUPS } from '@/lib/tool-groups';
import type { ProviderCapability } from '@/lib/types/delegation';
import type { Agent, Delegation } from '@/server/db/schema';
import { atDailyCap } from '@/server/budgets/daily-cap';
import { teamsAtBudget } from '@/server/budgets/team-budget';
import { schema } from '@/server/db';
import { preparedPerConnection } from '@/server/db/prepared';
import { zodFields } from '@/server/http/validation';
import { wakeScheduler } from '@/server/scheduler/signal';
import { neutralizedJson } from '@/server/trust/neutralize-tags';
import { findAgent, findAgentByName } from '../catalog';
import { turnStartIndex } from '../guards/notes';
import { ensembleMeta } from '../messages';
import { runTokenTotals } from '../observe/run-lifecycle';
import { conversationsHeld, quotas } from '../quotas';
import { SELF_REPORT_NOTICE } from '../receipts/report-contract';
import { activeRuns } from '../run-events';
import { findRun } from '../run-store';
import { isSuspension } from '../suspend';
import { readThread } from '../thread';
import type { RunContext } from '../run-types';
import { cancelChildrenOf } from './cancel';
import { acceptChild, findByCall, recordRefusal, type ParentRef } from './ledger';
import { outputValidator } from './output-capture';
import { pinProvider } from './provider-pins';
import { DEFAULT_PROVIDER, delegationProvider } from './providers';
import { depthOf, delegationSettingsFor, settingsOfAgent } from './settings';
import { taskRequestSchema, taskToolArgs, TaskRefusal, type DelegationSettings, type DelegationSpec, type TaskRequest, type ToolFilter } from './spec';
import { treeBudget } from './tree-budget';
import { awaitChild, ParentStoppedError } from './wait';

export const TASK_TOOL = 'task';

/** How many offered subagents the tool description lists by name (the rest are still accepted by id or name). */
const OFFER_LIST_MAX = 20;

/**
 * The `delegate` group: `task`, for a run that may still delegate (a run already at its depth cap is offered
 * nothing). Its description lists the subagents it accepts, from the run's settings snapshot.
 */
export async function delegateTools(context: RunContext): Promise<StructuredToolInterface[]> {
  if (!context.agentId || !context.runId) return [];
  const settings = await delegationSettingsFor(context);
  if (depthOf(context) >= settings.maxDepth) return [];
  const offered = await offeredSubagents(context, settings);
  const names = offered.slice(0, OFFER_LIST_MAX).map((a) => (a.id === context.agentId ? `"${a.name}" (yourself)` : `"${a.name}"`));
  const description = [
    'Hand a self-contained piece of work to a helper agent (a child run) and get its result back.',
    `Subagents you may use: ${names.join(', ')}${offered.length > OFFER_LIST_MAX ? ', and more by name' : ''}.`,
    `Several task calls in one response run in parallel (at most ${settings.concurrency} at once); this run may start ${settings.maxChildren} children in all.`,
    SELF_REPORT_NOTICE,
  ].join(' ');
  return [
    tool(async (args: unknown, config: RunnableConfig) => runTask(context, args, config), {
      name: TASK_TOOL,
      description,
      schema: taskToolArgs,
    }),
  ];
}

// Read when every run that may delegate to 'all' builds its tools: prepared once per connection (server/db/prepared.ts).
const otherAgentsByName = preparedPerConnection((db) =>
  db
    .select({ id: schema.agents.id, name: schema.agents.name })
    .from(schema.agents)
    .where(and(eq(schema.agents.ownerId, sql.placeholder('ownerId')), ne(schema.agents.id, sql.placeholder('agentId'))))
    .orderBy(asc(schema.agents.nameKey))
    .limit(OFFER_LIST_MAX + 1)
    .prepare(),
);

/** Yourself first, then the allowed agents of the same owner (for 'all', the first OFFER_LIST_MAX + 1 by name). */
async function offeredSubagents(context: RunContext, settings: DelegationSettings): Promise<Array<Pick<Agent, 'id' | 'name'>>> {
  const self = context.agentId ? await findAgent(context.ownerId, context.agentId) : null;
  const allowed = settings.allowedSubagents;
  const others =
    allowed === 'none'
      ? []
      : allowed === 'all'
        ? await otherAgentsByName().execute({ ownerId: context.ownerId, agentId: context.agentId ?? '' })
        : (await Promise.all(allowed.map((id) => findAgent(context.ownerId, id)))).filter((a): a is Agent => !!a && a.id !== self?.id);
  return [...(self ? [self] : []), ...others];
}

/** One `task` call: accept (or find) its child, wait for it, return its result as this call's tool result. */
async function runTask(context: RunContext, rawArgs: unknown, config: RunnableConfig): Promise<ToolMessage> {
  const toolCallId = (config as { toolCall?: { id?: string } }).toolCall?.id;
  if (!toolCallId) throw new Error('task can only run as a tool call of a run');
  const row = await inCallOrder(context.runId, async () => {
    const parent = await parentRef(context, toolCallId);
    let row = await findByCall(context.runId, toolCallId);
    if (!row) {
      try {
        row = await accept(context, parent, rawArgs);
      } catch (err) {
        if (!(err instanceof TaskRefusal)) throw err;
        row = await recordRefusal(parent, err, requestedProvider(rawArgs), null, rawArgs);
      }
    }
    return row;
  });
  const refused = (row.spec as { refused?: Record<string, unknown> }).refused;
  if (refused) return toolResult(toolCallId, 'error', refused, row);
  wakeScheduler();
  const signal = activeRuns().get(context.runId)?.controller.signal;
  let done: Delegation;
  try {
    done = await awaitChild(row.id, context.runId, signal);
  } catch (err) {
    // Cancelled or timed out: its children stop too. A shutdown leaves them to continue after the restart, where the
    // parent's redone tools step finds them and waits again.
    if (err instanceof ParentStoppedError && !isSuspension(err.reason)) await cancelChildrenOf(context.runId);
    throw err;
  }
  const result = done.result as Record<string, unknown> | null;
  return toolResult(toolCallId, done.status === 'completed' ? 'success' : 'error', result ?? { status: done.status, error: done.error }, done);
}

// Parallel `task` calls of one response are accepted one at a time, in the order they were asked for (ToolNode starts
// them in that order): the ledger's order (seq: the order children are admitted and listed) and which call a full
// ledger refuses follow the model's calls, not which call's reads the database happened to answer first.
const accepting = new Map<string, Promise<void>>();

function inCallOrder<T>(runId: string, fn: () => Promise<T>): Promise<T> {
  const previous = accepting.get(runId);
  const mine = previous ? previous.then(fn) : fn();
  const settled = mine.then(
    () => {},
    () => {},
  );
  accepting.set(runId, settled);
  void settled.then(() => {
    if (accepting.get(runId) === settled) accepting.delete(runId);
  });
  return mine;
}

/** The tool result: JSON (tag-neutralized: it carries model-written text), with the ids the run steps UI nests by. */
function toolResult(toolCallId: string, status: 'success' | 'error', content: Record<string, unknown>, row: Delegation): ToolMessage {
  return new ToolMessage({
    tool_call_id: toolCallId,
    name: TASK_TOOL,
    status,
    content: neutralizedJson(content),
    artifact: { delegationId: row.id, childRunId: row.childRunId },
  });
}

const requestedProvider = (args: unknown) => {
  const p = (args as { provider?: unknown } | null)?.provider;
  return typeof p === 'string' ? p.slice(0, 64) : DEFAULT_PROVIDER;
};

async function parentRef(context: RunContext, toolCallId: string): Promise<ParentRef> {
  const run = await findRun(context.runId);
  const teamId = run?.teamId ?? (typeof context.teamId === 'string' ? context.teamId : null);
  return {
    ownerId: context.ownerId,
    runId: context.runId,
    conversationId: context.conversationId,
    toolCallId,
    teamId,
    depth: depthOf(context),
    // A team job's run and a delegated child hold a scheduler slot; a direct conversation run holds none.
    holdsSlot: typeof context.jobId === 'string' || typeof context.delegationId === 'string',
  };
}

/** Validate a request against the run's settings and its provider; refusals are typed (TaskRefusal). */
async function accept(context: RunContext, parent: ParentRef, rawArgs: unknown): Promise<Delegation> {
  const parsed = taskRequestSchema.safeParse(rawArgs);
  if (!parsed.success) throw new TaskRefusal('invalid_arguments', 'The task arguments are not valid', { fields: zodFields(parsed.error) });
  const request = parsed.data;
  const settings = await delegationSettingsFor(context);
  const agent = await resolveSubagent(context, settings, request.subagent);
  const providerName = request.provider ?? DEFAULT_PROVIDER;
  const provider = delegationProvider(providerName);
  if (!provider) throw new TaskRefusal('unknown_provider', `There is no delegation provider "${providerName}"`, { provider: providerName });
  const childDepth = parent.depth + 1;
  if (childDepth > settings.maxDepth) {
    throw new TaskRefusal('depth_exceeded', `A child here would be at depth ${childDepth}, past this run's limit of ${settings.maxDepth}`, { depth: childDepth, maxDepth: settings.maxDepth });
  }
  if (request.output_schema) outputValidator(request.output_schema);
  const childTools = toolNamesOf(agent);
  const unknown = (request.tools ?? []).filter((name) => !childTools.includes(name));
  if (unknown.length) throw new TaskRefusal('unknown_tool', `The child has no tool named ${unknown.map((n) => `"${n}"`).join(', ')}`, { tools: unknown });
  const toolFilter = childToolFilter(toolFilterOf(context), request.tools);
  const childMaxDepth = settingsOfAgent(agent, settings.maxDepth).maxDepth;
  const childCanDelegate = childDepth < childMaxDepth && childTools.includes(TASK_TOOL) && (!toolFilter.allow || toolFilter.allow.includes(TASK_TOOL)) && !toolFilter.deny.includes(TASK_TOOL);
  const needed = requiredCapabilities(request, childCanDelegate, !!toolFilter.allow);
  const missing = needed.filter((c) => !provider.capabilities.has(c));
  if (missing.length) {
    throw new TaskRefusal('unsupported_capability', `The provider "${provider.name}" does not support ${missing.join(', ')}`, { provider: provider.name, capabilities: missing });
  }
  await assertBudgetOpen(context, parent);
  // Each child stores a hidden conversation, counted in the account's quota (checked again when it is created).
  const limit = quotas().conversationsPerAccount;
  if ((await conversationsHeld(context.ownerId)) >= limit) {
    throw new TaskRefusal('quota_reached', `The account holds its ${limit} conversations (a child's counts too): no new children can start`, { limit });
  }
  const spec: DelegationSpec = { request, trusted: await parentTurnTrusted(context), limits: { concurrency: settings.concurrency, maxDepth: childMaxDepth }, settings, toolFilter };
  const row = await acceptChild(parent, { agentId: agent.id, provider: provider.name, spec }, settings.maxChildren);
  if (row) pinProvider(row.id, provider);
  if (!row) {
    throw new TaskRefusal('children_exhausted', `This run has started all ${settings.maxChildren} children it may`, { maxChildren: settings.maxChildren });
  }
  return row;
}

/**
 * No new child once the parent's team has used its token budget or the account its daily cap (ADR 023): like a
 * team's queued work, new children wait for nothing — they are refused, and the agent finishes with what it has.
 * Children already accepted still run (running work finishes).
 */
async function assertBudgetOpen(context: RunContext, parent: ParentRef): Promise<void> {
  if (parent.teamId && (await teamsAtBudget([parent.teamId])).has(parent.teamId)) {
    throw new TaskRefusal('budget_reached', "The team's token budget is used up: no new children can start");
  }
  if (await atDailyCap(context.ownerId)) throw new TaskRefusal('budget_reached', "The account's daily token cap is reached: no new children can start");
  const tree = await treeBudget(context.runId);
  if (tree && tree.spentElsewhere + (await ownTokens(context.runId)) >= tree.budget) {
    throw new TaskRefusal('budget_reached', `This delegation tree has used its ${tree.budget.toLocaleString('en-US')} tokens: no new children can start`);
  }
}

/** What the run has spent so far (its recorded model calls). */
async function ownTokens(runId: string): Promise<number> {
  const totals = await runTokenTotals(runId);
  return totals.inputTokens + totals.outputTokens;
}

/**
 * Start-time capabilities a request needs; depthLimit when the child could itself delegate (its depth must be
 * bounded), toolFilter when its tools are limited (by the request or by an ancestor's filter).
 */
export function requiredCapabilities(request: TaskRequest, childCanDelegate: boolean, filtered = !!request.tools): ProviderCapability[] {
  const needed: ProviderCapability[] = [];
  if (request.output_schema) needed.push('outputSchema');
  if (childCanDelegate) needed.push('depthLimit');
  if (filtered) needed.push('toolFilter');
  if (request.persona) needed.push('persona');
  return needed;
}

/** The subagent by id or name among the owner's agents (default: the calling agent itself), if this run may use it. */
async function resolveSubagent(context: RunContext, settings: DelegationSettings, wanted: string | undefined): Promise<Agent> {
  const self = context.agentId ? await findAgent(context.ownerId, context.agentId) : null;
  const agent = wanted === undefined ? self : ((await findAgent(context.ownerId, wanted)) ?? (await findAgentByName(context.ownerId, wanted)));
  // Another owner's agent is exactly as unknown as a missing one.
  if (!agent) throw new TaskRefusal('unknown_subagent', wanted === undefined ? 'This run has no agent to delegate to' : `There is no agent "${wanted}"`, { subagent: wanted ?? null });
  if (agent.id === self?.id) return agent;
  const allowed = settings.allowedSubagents;
  if (allowed === 'none' || (Array.isArray(allowed) && !allowed.includes(agent.id))) {
    throw new TaskRefusal('subagent_not_allowed', `This agent may not delegate to "${agent.name}"`, { subagent: wanted ?? null });
  }
  return agent;
}

/** The run's own tool filter, from its server-written context (a delegated child's; none for any other run). */
function toolFilterOf(context: RunContext): ToolFilter {
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : undefined);
  return { allow: names(context.toolAllowlist), deny: names(context.toolDenylist) ?? [] };
}

/**
 * A child's filter within its parent's: the tools it asks for must be ones the parent may use itself (else
 * `tool_not_allowed`); without a request it inherits the parent's allowlist; the parent's denylist always carries down.
 */
export function childToolFilter(parent: ToolFilter, requested: string[] | undefined): ToolFilter {
  const notAllowed = (requested ?? []).filter((name) => (parent.allow && !parent.allow.includes(name)) || parent.deny.includes(name));
  if (notAllowed.length) {
    throw new TaskRefusal('tool_not_allowed', `This run may not use ${notAllowed.map((n) => `"${n}"`).join(', ')} itself, so it can't give it to a child`, { tools: notAllowed });
  }
  const allow = requested ?? parent.allow;
  return { ...(allow ? { allow } : {}), deny: parent.deny };
}

/** The tool names an agent's groups give it (an empty allowlist = every group), from the static group list. */
export function toolNamesOf(agent: Pick<Agent, 'toolGroups'>): string[] {
  const groups = agent.toolGroups.length ? agent.toolGroups : Object.keys(TOOL_GROUPS);
  return groups.flatMap((g) => [...((TOOL_GROUPS as Record<string, { tools: readonly string[] }>)[g]?.tools ?? [])]);
}

/**
 * Whether the child may act on directives in its task text (docs/decisions/024): only when the parent's current turn
 * is the person's own words and the parent runs the scripted model, whose tool arguments are then verbatim text from
 * the person or the owner. Anything a real model wrote stays data.
 */
async function parentTurnTrusted(context: RunContext): Promise<boolean> {
  const run = await findRun(context.runId);
  if (!run || parseModel(run.model)?.provider !== 'scripted') return false;
  const { messages } = await readThread(context.conversationId);
  const human = messages[turnStartIndex(messages)];
  return !!human && ensembleMeta(human)?.author === 'person';
}
