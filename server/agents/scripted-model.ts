import 'server-only';
import crypto from 'node:crypto';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { LIMITS } from '@/lib/limits';
import type { SystemCallOptions, TranscriptEntry } from './compaction/summarize';
import { NO_SCRIPT, parseScript, type Script } from './directives';
import { isGuardNote } from './guards/notes';
import { contentText, ensembleMeta, personWrittenText, taskText } from './messages';
import { splitReceiptLabel } from './receipts/model-view';

/**
 * A `/flaky` attempt's failure: a provider's 429 asking to wait 2 s (transient, so the model call is retried: ADR
 * 042; long enough for the card's retry notice to be seen).
 */
const flakyError = () => Object.assign(new Error('429 Scripted rate limit (/flaky)'), { status: 429, headers: { 'retry-after': '2' } });

/** Marks the `_generate` call a stream makes (a symbol: no text or option from outside can set it). */
const STREAMED = Symbol('scripted-streamed');

/** The tool the scripted model calls for `/ask`. */
export const CLARIFICATION_TOOL = 'ask_clarification';

export type ScriptedModelFields = {
  agentName: string;
  /** The agent's instructions, written by its owner: their directive lines script every request turn. */
  instructions?: string;
};

/**
 * The embedded deterministic model (DESIGN.md, "The embedded model `scripted`"): a real LangChain chat model that
 * acts on directive lines, so it runs through the same graph, tools and checkpoints as a real provider.
 * Directives are trusted only from the person and the agent's owner (see `scriptFor`), never from text another
 * model wrote: a peer's request, a returned result or the shared context.
 */
export class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions> {
  readonly agentName: string;
  readonly instructions: string;

  constructor(fields: ScriptedModelFields) {
    super({});
    this.agentName = fields.agentName;
    this.instructions = fields.instructions ?? '';
  }

  static lc_name() {
    return 'ScriptedChatModel';
  }

  _llmType(): string {
    return 'scripted';
  }

  /** The scripted model names its tools in directives, so binding only has to return a model. */
  bindTools(_tools: BindToolsInput[]): ScriptedChatModel {
    return new ScriptedChatModel({ agentName: this.agentName, instructions: this.instructions });
  }

  /** Attempts of each model call so far (`/flaky`), by the length of its input: one call per turn and input. */
  private readonly attempts = new Map<number, number>();

  /** True when this attempt of the call must fail (`/flaky N`: its first N attempts); the framework's calls never do. */
  private flakyAttempt(messages: BaseMessage[], options: this['ParsedCallOptions']): boolean {
    if ((options as SystemCallOptions).ensembleSystemCall) return false;
    const { flaky } = scriptFor(readTurn(messages).human, this.instructions);
    if (!flaky) return false;
    const attempt = (this.attempts.get(messages.length) ?? 0) + 1;
    this.attempts.set(messages.length, attempt);
    return attempt <= flaky;
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    // The stream decided about `/flaky` itself (it fails after its first word); a direct call fails at once.
    if (!(options as { [STREAMED]?: true })[STREAMED] && this.flakyAttempt(messages, options)) throw flakyError();
    // A framework system call is marked by a call option the server sets (compaction/summarize.ts), never by text.
    if ((options as SystemCallOptions).ensembleSystemCall === 'summary') return withUsage(messages, scriptedSummary(messages));
    const turn = readTurn(messages);
    const script = scriptFor(turn.human, this.instructions);
    if (script.sleepMs > 0) await abortableSleep(script.sleepMs, options.signal);
    options.signal?.throwIfAborted();
    if (script.errors.length) throw new Error(`Scripted model could not read: ${script.errors.join('; ')}`);
    if (script.fail !== null) throw new Error(script.fail);

    // The server's call option (never text) when a guard requires an answer now: text only, whatever the script.
    const answerNow = (options as { ensembleAnswerNow?: boolean }).ensembleAnswerNow === true;
    const response = answerNow ? new AIMessage({ id: `scripted-${crypto.randomUUID()}`, content: this.finalAnswer(turn, script, messages), tool_calls: [] }) : this.respond(turn, script, messages);
    if (script.tokens !== null) return withReportedUsage(response, script.tokens);
    return withUsage(messages, response, inputCharsOf(messages));
  }

  /**
   * The `_generate` response, streamed (so the two can never differ, and whatever watches `_generate` sees every
   * call): its text in word-sized chunks, `/pace MS` apart so a viewer can watch it arrive, then one chunk with
   * its tool calls and usage. A `/flaky` attempt breaks off after its first word, as a provider stream that fails.
   */
  async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const flaky = this.flakyAttempt(messages, options);
    const message = (await this._generate(messages, { ...options, [STREAMED]: true })).generations[0]!.message as AIMessage;
    const paceMs = (options as SystemCallOptions).ensembleSystemCall ? 0 : scriptFor(readTurn(messages).human, this.instructions).paceMs;
    const id = message.id;
    const words = contentText(message.content).match(WORD_CHUNK) ?? [];
    for (const [i, word] of words.entries()) {
      if (i > 0 && paceMs > 0) await abortableSleep(paceMs, options.signal);
      options.signal?.throwIfAborted();
      yield new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ ...(id ? { id } : {}), content: word }) });
      await runManager?.handleLLMNewToken(word);
      if (flaky) throw flakyError();
    }
    if (flaky) throw flakyError();
    const calls = (message.tool_calls ?? []).map((c, index) => ({ type: 'tool_call_chunk' as const, id: c.id, name: c.name, args: JSON.stringify(c.args), index }));
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({ ...(id ? { id } : {}), content: '', tool_call_chunks: calls, ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}) }),
    });
  }

  private respond(turn: Turn, script: Script, messages: readonly BaseMessage[]): AIMessage {
    const id = `scripted-${crypto.randomUUID()}`;
    const action = script.actions[turn.modelTurns];
    if (action) {
      const call = action.kind === 'call' ? { name: action.tool, args: action.args } : { name: CLARIFICATION_TOOL, args: { question: action.question } };
      const also = action.kind === 'call' ? (action.also ?? []).map((c) => ({ name: c.tool, args: c.args })) : [];
      return toolCallMessage(id, [call, ...also], script.say);
    }
    if (script.loop) return toolCallMessage(id, [{ name: script.loop.tool, args: script.loop.args }], script.say);
    return new AIMessage({ id, content: this.finalAnswer(turn, script, messages), tool_calls: [] });
  }

  private finalAnswer(turn: Turn, script: Script, messages: readonly BaseMessage[]): string {
    const answer = this.answerText(turn, script);
    if (!script.cite) return answer;
    // Every receipt label this run has shown the model (earlier runs' results carry none it may cite).
    const labels = messages.filter((m) => m.getType() === 'tool').flatMap((m) => splitReceiptLabel(contentText(m.content)).label ?? []);
    return `${answer}\nReceipts: ${labels.length ? labels.join(' ') : 'none'}`;
  }

  private answerText(turn: Turn, script: Script): string {
    if (script.reply !== null) return script.reply;
    const meta = turn.human ? ensembleMeta(turn.human) : undefined;
    if (meta?.kind === 'receipt') {
      const result = excerpt(typeof meta.resultText === 'string' ? meta.resultText : '');
      return `Received ${String(meta.status ?? 'completed')} result from ${String(meta.memberName ?? 'a member')}: ${result}`;
    }
    if (script.actions.length || script.loop) {
      // The result text as the tool gave it: the receipt label the model sees before it is left out.
      const lines = turn.toolResults.map((t) => `[${t.name ?? 'tool'}] ${excerpt(splitReceiptLabel(contentText(t.content)).text)}`);
      return [`${this.agentName}: done`, ...lines].join('\n');
    }
    if (meta?.kind === 'clarification_answer' && !script.hasDirectives) return `Clarification accepted: ${turn.text.trim()}.`;
    const firstLine = turn.text.split(/\r?\n/, 1)[0] ?? '';
    return `${this.agentName} received: ${excerpt(firstLine)}`;
  }
}

/** Usage as characters ÷ 4 (input counted by inputCharsOf for a conversation, directly for a system call). */
function withUsage(messages: readonly BaseMessage[], message: AIMessage, inputChars = messages.reduce((n, m) => n + contentText(m.content).length, 0)): ChatResult {
  const outputChars = contentText(message.content).length + (message.tool_calls ?? []).reduce((n, c) => n + c.name.length + JSON.stringify(c.args).length, 0);
  message.usage_metadata = {
    input_tokens: Math.ceil(inputChars / 4),
    output_tokens: Math.ceil(outputChars / 4),
    total_tokens: Math.ceil(inputChars / 4) + Math.ceil(outputChars / 4),
  };
  return { generations: [{ text: contentText(message.content), message }] };
}

/** `/tokens N`: exactly N tokens reported, three quarters as input and the rest as output. */
function withReportedUsage(message: AIMessage, total: number): ChatResult {
  const output = Math.floor(total / 4);
  message.usage_metadata = { input_tokens: total - output, output_tokens: output, total_tokens: total };
  return { generations: [{ text: contentText(message.content), message }] };
}

/** A word with the spaces after it (leading spaces alone): the chunks join back into the text exactly. */
const WORD_CHUNK = /\s+|\S+\s*/gy;

/**
 * The deterministic summary: "Summary of N earlier message(s):" and one line per transcript entry (its role and the
 * first line of its text, at most SUMMARY_LINE_CHARS). The entries come from the server-set meta of the request.
 */
function scriptedSummary(messages: readonly BaseMessage[]): AIMessage {
  const request = messages.at(-1);
  const entries = (request ? (ensembleMeta(request)?.transcript as TranscriptEntry[] | undefined) : undefined) ?? [];
  const lines = entries.map((e) => {
    const first = (e.text.split(/\r?\n/).find((l) => l.trim()) ?? '').trim();
    return `- ${e.role}: ${Array.from(first).slice(0, SUMMARY_LINE_CHARS).join('')}`;
  });
  return new AIMessage({ id: `scripted-${crypto.randomUUID()}`, content: [`Summary of ${entries.length} earlier message${entries.length === 1 ? '' : 's'}:`, ...lines].join('\n'), tool_calls: [] });
}

const SUMMARY_LINE_CHARS = 80;

/** Human turns that start new work; a receipt or a clarification answer continues work already begun. */
const REQUEST_KINDS = new Set<string | undefined>([undefined, 'team_request', 'delegated_task']);
/** Turns whose task text the person may script: their chat message, their team request, their answer. */
// A delegated task counts as the person's only when the parent's turn was (server/agents/delegation, ADR 024).
const PERSON_SCRIPTABLE_KINDS = new Set<string | undefined>([undefined, 'team_request', 'clarification_answer', 'delegated_task']);

/**
 * The directives a turn acts on, decided from server-set provenance (messages.ts `MessageAuthor`), never from
 * anything in the text:
 * 1. the person's own directive lines, when the person wrote this turn's task text;
 * 2. otherwise, on a request turn (a chat message or a team request from anyone), the directive lines of the
 *    agent's instructions, which its owner wrote;
 * 3. otherwise none: a peer's directives, a receipt and the shared context are only data.
 */
export function scriptFor(human: BaseMessage | undefined, instructions: string): Script {
  const kind = human ? ensembleMeta(human)?.kind : undefined;
  const own = human && PERSON_SCRIPTABLE_KINDS.has(kind) ? personWrittenText(human) : null;
  if (own !== null) {
    const script = parseScript(own);
    if (script.hasDirectives) return script;
  }
  return human && REQUEST_KINDS.has(kind) ? parseScript(instructions) : NO_SCRIPT;
}

type Turn = { human: BaseMessage | undefined; text: string; modelTurns: number; toolResults: ToolMessage[] };

/** The newest human message (a guard's note is not one: it continues the turn), its task text, and what the model and tools did since. */
function readTurn(messages: BaseMessage[]): Turn {
  let start = messages.length - 1;
  while (start >= 0 && (messages[start]!.getType() !== 'human' || isGuardNote(messages[start]!))) start--;
  const human = start >= 0 ? messages[start] : undefined;
  const after = messages.slice(start + 1);
  return {
    human,
    text: human ? taskText(human) : '',
    modelTurns: after.filter((m) => m.getType() === 'ai').length,
    toolResults: after.filter((m): m is ToolMessage => m.getType() === 'tool'),
  };
}

/**
 * Characters of every message's text (the usage estimate). The model sees the whole conversation at each step; the
 * sums of the last list counted for a conversation are reused for the messages the new list shares with it (the
 * same objects at the same positions), so a step counts only what is new.
 */
function inputCharsOf(messages: readonly BaseMessage[]): number {
  const chars = (m: BaseMessage) => contentText(m.content).length;
  // messages[0] is the system prompt, made anew for each call; the conversation starts at 1.
  const system = messages.length ? chars(messages[0]!) : 0;
  const first = messages[1];
  if (!first) return system;
  const last = charCounts.get(first);
  let shared = 1;
  if (last) while (shared < messages.length && shared < last.list.length && messages[shared] === last.list[shared]) shared++;
  // before[i]: characters of messages 1 … i-1.
  const before = last ? last.before.slice(0, shared + 1) : [0, 0];
  for (let i = shared; i < messages.length; i++) before[i + 1] = before[i]! + chars(messages[i]!);
  charCounts.set(first, { list: messages.slice(), before });
  return system + before[messages.length]!;
}

/** Per conversation (keyed by its first message, weakly): the last list counted and its running sums. */
const charCounts = new WeakMap<BaseMessage, { list: readonly BaseMessage[]; before: number[] }>();

function toolCallMessage(id: string, calls: Array<{ name: string; args: Record<string, unknown> }>, text: string | null = null): AIMessage {
  return new AIMessage({
    id,
    content: text ?? '',
    tool_calls: calls.map((call) => ({ id: `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`, name: call.name, args: call.args, type: 'tool_call' as const })),
  });
}

/** The first LIMITS.scripted.excerptChars characters (code points). */
function excerpt(text: string): string {
  return Array.from(text).slice(0, LIMITS.scripted.excerptChars).join('');
}

/** Wait ms, or reject as soon as the run is cancelled. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('Aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('Aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
