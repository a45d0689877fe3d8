import 'server-only';
import { AIMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import { parseModel } from '@/lib/models';
import { contentText } from '../messages';

/**
 * Token counts for compaction (docs/decisions/016-compaction.md). An OpenAI model is counted with its own
 * tokenizer (js-tiktoken with the ranks bundled in the package: nothing is fetched at run time); every other model
 * with the documented estimate, ceil(UTF-8 bytes / 4). Bytes rather than characters: English text is about four
 * characters (= bytes) per token either way, while a CJK character (3 bytes) is often a whole token, so counting
 * characters would under-count by up to 4× and compact too late; bytes err towards compacting early.
 *
 * Each message is counted once per counter and remembered by object (weakly): a model call counts only the
 * messages it has not seen, never the whole conversation again.
 */
export type TokenCounter = {
  kind: 'tokenizer' | 'estimate';
  text(text: string): number;
  message(message: BaseMessage): number;
};

/** What every message costs besides its text (role and separators; OpenAI documents 3-4 per message). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export const estimateTokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4);

/** The text of a message that reaches the model: its content, and the name and arguments of each tool call. */
export function countedText(message: BaseMessage): string {
  let text = contentText(message.content);
  if (AIMessage.isInstance(message)) for (const call of message.tool_calls ?? []) text += `${call.name}${JSON.stringify(call.args ?? {})}`;
  const toolCallId = (message as ToolMessage).tool_call_id;
  if (message.getType() === 'tool' && typeof toolCallId === 'string') text += toolCallId;
  return text;
}

function makeCounter(kind: TokenCounter['kind'], countText: (text: string) => number): TokenCounter {
  const seen = new WeakMap<BaseMessage, number>();
  return {
    kind,
    text: countText,
    message(message) {
      let n = seen.get(message);
      if (n === undefined) seen.set(message, (n = countText(countedText(message)) + MESSAGE_OVERHEAD_TOKENS));
      return n;
    },
  };
}

const ESTIMATE = makeCounter('estimate', estimateTokens);

/**
 * An upper bound of any tokenizer's count: every token covers at least one UTF-8 byte. An input whose bytes stay
 * within the threshold is within it for every model, so the tokenizer (costly to load) is consulted only near it.
 */
export const BYTE_BOUND = makeCounter('estimate', (text) => Buffer.byteLength(text, 'utf8'));

type Encoding = 'o200k_base' | 'cl100k_base';

/** The tokenizer of an OpenAI chat model, by name prefix; null for names we can't vouch for (estimate then). */
export function openAiEncoding(model: string): Encoding | null {
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4)/.test(model)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5)/.test(model)) return 'cl100k_base';
  return null;
}

// One encoder per process and encoding (route bundles may load their own copy of this module).
const g = globalThis as unknown as { __ensembleTokenCounters?: Map<Encoding, Promise<TokenCounter>> };
const counters = (g.__ensembleTokenCounters ??= new Map());

/**
 * The counter for an agent's model. Building an encoder parses its ranks (about a second of CPU, once per process
 * and encoding), so it is loaded on first use and shared; a model the ranks don't cover uses the estimate.
 */
export function tokenCounterFor(model: string): Promise<TokenCounter> {
  const spec = parseModel(model);
  const encoding = spec?.provider === 'openai' ? openAiEncoding(spec.model) : null;
  if (!encoding) return Promise.resolve(ESTIMATE);
  let counter = counters.get(encoding);
  if (!counter) {
    counter = loadEncoder(encoding);
    counters.set(encoding, counter);
  }
  return counter;
}

async function loadEncoder(encoding: Encoding): Promise<TokenCounter> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks = encoding === 'o200k_base' ? (await import('js-tiktoken/ranks/o200k_base')).default : (await import('js-tiktoken/ranks/cl100k_base')).default;
  const encoder = new Tiktoken(ranks);
  // Special-token text in a message is counted as plain text, the way a provider receives a person's words.
  return makeCounter('tokenizer', (text) => encoder.encode(text, [], []).length);
}
