import 'server-only';
import crypto from 'node:crypto';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { LIMITS } from '@/lib/limits';
import { contentText } from '../messages';
import { providerGate } from '../model-call/call-model';
import { observeModelCall } from '../observe/model-call';
import type { RunIds } from '../observe/run-ids';
import { capacityOf } from '../providers';
import { journalRunEvent } from '../observe/record';
import { runIdsOf } from '../observe/run-ids';
import { keepTokensFor, planCompaction, type PlanItem } from './plan';
import { latestCompaction, saveCompaction, type CompactionRecord, type LatestCompaction } from './store';
import { summarize, transcriptOf } from './summarize';
import { summaryMessage } from './summary-message';
import { BYTE_BOUND, MESSAGE_OVERHEAD_TOKENS, tokenCounterFor, type TokenCounter } from './tokens';

/** The agent fields compaction reads. */
export type CompactionAgent = { model: string; compactAtTokens?: number | null };

export type ModelInputArgs = {
  agent: CompactionAgent;
  /** The agent's model without tools bound: it writes the summary. */
  model: BaseChatModel;
  systemPrompt: string;
  /** The thread's messages, every one of them (the thread is never shortened). */
  messages: readonly BaseMessage[];
  config: RunnableConfig;
};

export const thresholdFor = (agent: CompactionAgent): number => agent.compactAtTokens ?? LIMITS.compaction.defaultAtTokens;

/**
 * The messages the model receives for this call (after the system prompt): the thread as it is while the input
 * stays within the agent's threshold; once the thread has been compacted, the newest summary and the messages after
 * it; and when the input passes the threshold now, a new summary of the previous summary and the next span (one
 * system model call, observed as a `model.call` event with `system: 'summary'`), recorded with a `compaction` event
 * in the same step. Only the newest record matters for the input; older ones stay for the conversation view.
 */
export async function modelInput({ agent, model, systemPrompt, messages, config }: ModelInputArgs): Promise<BaseMessage[]> {
  const threadId = config.configurable?.thread_id;
  if (typeof threadId !== 'string') return messages.slice();
  let latest = await latestCompaction(threadId);
  const through = latest ? locate(latest, messages) : -1;
  if (through < 0) latest = null; // a record whose message is not in this list (never expected: threads keep every message)
  const from = through + 1;
  const threshold = thresholdFor(agent);
  const view = () => (latest ? [latest.message, ...messages.slice(from)] : messages.slice());
  // Far below the threshold (even counting one token per byte) there is nothing to decide: no tokenizer is loaded.
  if (inputTokens(BYTE_BOUND, systemPrompt, latest, messages, from) <= threshold) return view();
  const counter = await tokenCounterFor(agent.model);

  const prompt = promptTokens(counter, systemPrompt);
  const fixed = prompt + (latest ? counter.message(latest.message) : 0);
  const total = inputTokens(counter, systemPrompt, latest, messages, from);
  if (total <= threshold) return view();

  const items = messages.slice(from).map(planItem(counter));
  const relative = planCompaction({ items, from: 0, fixed, threshold, keep: keepTokensFor(threshold, LIMITS.compaction.keepTokens) });
  const cut = relative === null ? null : from + relative;
  const last = cut === null ? undefined : messages[cut - 1];
  if (cut === null || !last?.id) return view();

  const span = messages.slice(from, cut);
  const run = runIdsOf(config);
  const response = await observeModelCall(run, agent.model, () => summarize(model, transcriptOf(latest?.record.summary ?? null, span), config.signal), { system: 'summary', signal: config.signal, ...summaryGate(model, run, agent.model, config.signal) });
  const summary = contentText(response.content).trim();
  // An empty summary would silently drop the span: keep sending the thread as it is (the next call tries again).
  if (!summary) return view();

  const runId = (config.configurable?.ensemble as { runId?: unknown } | undefined)?.runId;
  const record: CompactionRecord = {
    threadId,
    runId: typeof runId === 'string' ? runId : '',
    throughMessageId: last.id,
    summaryMessageId: `compaction:${crypto.randomUUID()}`,
    summary,
    removed: span.map((m) => ({ id: m.id ?? '', hash: messageHash(m) })),
    tokensBefore: total,
    tokensAfter: 0,
    createdAt: Date.now(),
  };
  const message = summaryMessage(record);
  let after = prompt + counter.message(message);
  for (let i = cut; i < messages.length; i++) after += counter.message(messages[i]!);
  record.tokensAfter = after;
  const compacted: LatestCompaction = { record, message, hint: cut - 1 };
  saveCompaction(compacted);
  if (run) {
    journalRunEvent(run.runId, run.threadId, {
      type: 'compaction',
      removed: record.removed,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
      counter: counter.kind,
      summaryMessageId: record.summaryMessageId,
    });
  }
  return [message, ...messages.slice(cut)];
}

/** Tokens of the model's input as it stands: the system prompt, the newest summary and the messages after it. */
function inputTokens(counter: TokenCounter, systemPrompt: string, latest: LatestCompaction | null, messages: readonly BaseMessage[], from: number): number {
  let total = promptTokens(counter, systemPrompt) + (latest ? counter.message(latest.message) : 0);
  for (let i = from; i < messages.length; i++) total += counter.message(messages[i]!);
  return total;
}

/** Position of the record's last summarized message; remembered, so the next step checks one position. */
function locate(latest: LatestCompaction, messages: readonly BaseMessage[]): number {
  const id = latest.record.throughMessageId;
  if (messages[latest.hint]?.id === id) return latest.hint;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.id === id) return (latest.hint = i);
  }
  return -1;
}

const planItem = (counter: TokenCounter) => (m: BaseMessage): PlanItem => {
  const item: PlanItem = { tokens: counter.message(m) };
  if (AIMessage.isInstance(m) && m.tool_calls?.length) item.calls = m.tool_calls.flatMap((c) => (c.id ? [c.id] : []));
  if (m.getType() === 'tool') item.resultOf = (m as ToolMessage).tool_call_id;
  return item;
};

/** sha256 (hex, first 16 characters) of what the model received of a message: type, text, tool calls, call id. */
export function messageHash(m: BaseMessage): string {
  const canonical = JSON.stringify({
    type: m.getType(),
    content: m.content,
    toolCalls: AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.name, args: c.args ?? {} })) : null,
    toolCallId: m.getType() === 'tool' ? ((m as ToolMessage).tool_call_id ?? null) : null,
  });
  return crypto.createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** The system prompt's tokens, remembered per counter (an agent's prompt is the same at every call). */
const promptCounts = new WeakMap<TokenCounter, Map<string, number>>();

function promptTokens(counter: TokenCounter, prompt: string): number {
  let counts = promptCounts.get(counter);
  if (!counts) promptCounts.set(counter, (counts = new Map()));
  let n = counts.get(prompt);
  if (n === undefined) {
    if (counts.size >= 512) counts.clear();
    counts.set(prompt, (n = counter.text(prompt) + MESSAGE_OVERHEAD_TOKENS));
  }
  return n;
}

/** A summary call takes its provider's capacity as the agent's turns do (none for the scripted model). */
function summaryGate(model: BaseChatModel, run: RunIds | undefined, modelName: string, signal: AbortSignal | undefined) {
  const capacity = capacityOf(model);
  return capacity ? { gate: providerGate(capacity, run, modelName, signal) } : {};
}
