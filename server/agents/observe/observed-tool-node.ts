import 'server-only';
import { mcpSourceOfMessage } from '../mcp-source';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { isCommand, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { contentText, isDeclined } from '../messages';
import { stripEnsembleMeta } from '../provenance';
import { receiptStampOf, stampReceipts } from '../receipts/stamp';
import { capText } from './caps';
import { journalRunEvent } from './record';
import { runIdsOf, type RunIds } from './run-ids';
import type { SkillRef } from '@/lib/types/skill';

/**
 * A ToolNode that records a `step.tool` event for every tool result of its step — all of them when a model turn
 * asked for several (ToolNode runs them in parallel) — in the order the calls were asked for, which is the order
 * the results are saved in.
 *
 * Timing: `runTool` is ToolNode's one call per tool call, so each duration is that tool's own, from its start to
 * its result, whatever its siblings do, and it covers ToolNode's own answers (a tool that threw, an unknown tool).
 * Keyed by tool call id. Callbacks would report LangChain run ids (to be mapped back to calls, and fired for nested
 * runnables too); wrapping each tool would replace the objects the registry hands out and differ per tool type.
 */
export class ObservedToolNode extends ToolNode {
  private readonly durations = new Map<string, number>();

  protected override async runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown) {
    const started = performance.now();
    try {
      return await super.runTool(call, config, state);
    } finally {
      if (call.id) this.durations.set(call.id, Math.round(performance.now() - started));
    }
  }

  protected override async run(input: unknown, config: LangGraphRunnableConfig) {
    this.durations.clear();
    const output = await super.run(input, config);
    const results = resultMessages(output);
    // A tool's result can't carry server meta (provenance, author, a receipt): strip it, then stamp the receipts.
    stripEnsembleMeta(results);
    const runId = (config.configurable?.ensemble as { runId?: unknown } | undefined)?.runId;
    if (typeof runId === 'string') stampReceipts((input as { messages?: BaseMessage[] }).messages ?? [], runId, results);
    const run = runIdsOf(config);
    if (run) for (const message of results) recordToolResult(run, message, this.durations.get(message.tool_call_id) ?? 0);
    this.durations.clear();
    return output;
  }
}

/**
 * Record one tool result of a step, with the receipt stamped on it (receipts/stamp.ts). Also used for the results
 * the approval step writes for declined calls (no tool ran: duration 0, status error), so every tool message of a
 * thread has its step event and its receipt.
 */
export function recordToolResult(run: RunIds | undefined, message: ToolMessage, durationMs: number): void {
  if (!run) return;
  const result = capText(contentText(message.content));
  const receipt = receiptStampOf(message);
  const child = delegationRef(message.artifact);
  journalRunEvent(run.runId, run.threadId, {
    type: 'step.tool',
    toolCallId: message.tool_call_id,
    tool: message.name ?? '',
    result: result.text,
    ...(result.truncated ? { truncated: true as const } : {}),
    durationMs,
    status: message.status === 'error' ? 'error' : 'success',
    ...(isDeclined(message) ? { declined: true as const } : {}),
    ...(receipt ? { receipt: receipt.id } : {}),
    ...child,
    ...mcpRef(message),
    ...webRef(message.artifact),
    ...skillRef(message.artifact),
  });
}

/**
 * The skill a read_skill result read (server/skills/tool-group.ts writes it from the skill's row): the run remembers
 * it by reference, its id and pack hash and the path, never its text (ADR 061).
 */
function skillRef(artifact: unknown): { origin?: string; skill?: SkillRef } {
  const a = artifact as { origin?: unknown; skill?: Partial<SkillRef> } | null | undefined;
  const s = a?.skill;
  if (typeof a?.origin !== 'string' || !a.origin.startsWith('skill:') || !s) return {};
  if (typeof s.id !== 'string' || typeof s.name !== 'string' || typeof s.hash !== 'string' || typeof s.path !== 'string') return {};
  return { origin: a.origin, skill: { id: s.id, name: s.name, hash: s.hash, path: s.path } };
}

/** Where a web tool's result came from (`web:<host>`, `web-search:<provider>`: the artifact server/web/tools.ts writes). */
function webRef(artifact: unknown): { origin?: string } {
  const origin = (artifact as { origin?: unknown } | null | undefined)?.origin;
  return typeof origin === 'string' && (origin.startsWith('web:') || origin.startsWith('web-search:')) ? { origin } : {};
}

/** The MCP server and tool a result came from (its artifact; a declined call's meta): mcp-source.ts. */
function mcpRef(message: ToolMessage): { mcp?: { server: string; tool: string } } {
  const mcp = mcpSourceOfMessage(message);
  return mcp ? { mcp } : {};
}

/** The tool messages of a ToolNode result: `{ messages }`, a list, or Commands carrying messages in their update. */
function resultMessages(output: unknown): ToolMessage[] {
  const found: ToolMessage[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (ToolMessage.isInstance(value)) return void found.push(value);
    if (isCommand(value)) return visit((value.update as { messages?: unknown } | undefined)?.messages);
    const messages = (value as { messages?: BaseMessage[] } | null)?.messages;
    if (messages) visit(messages);
  };
  visit(output);
  return found;
}

/** The child a `task` result names in its artifact (set by the delegation tool; a model can't write artifacts). */
function delegationRef(artifact: unknown): { delegationId?: string; childRunId?: string } {
  const a = artifact as { delegationId?: unknown; childRunId?: unknown } | null | undefined;
  return {
    ...(typeof a?.delegationId === 'string' ? { delegationId: a.delegationId } : {}),
    ...(typeof a?.childRunId === 'string' ? { childRunId: a.childRunId } : {}),
  };
}
