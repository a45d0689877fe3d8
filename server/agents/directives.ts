import 'server-only';
import { LIMITS } from '@/lib/limits';

/**
 * The scripted model's directive lines (DESIGN.md, "The embedded model"). Pure parsing: one line each,
 * leading whitespace ignored; lines that are not directives are ordinary text. Which text may be parsed at all
 * (the person's own words and the agent's instructions, never a peer's) is decided by scripted-model.ts.
 */
/** `also`: further calls made in the same response (`/also` lines after a `/call`), e.g. parallel `task` calls. */
export type ToolAction = { kind: 'call'; tool: string; args: Record<string, unknown>; also?: Array<{ tool: string; args: Record<string, unknown> }> };
export type AskAction = { kind: 'ask'; question: string };
export type ScriptAction = ToolAction | AskAction;

export type Script = {
  /** `/call` and `/ask`, in order: the k-th model turn performs the k-th action. */
  actions: ScriptAction[];
  /** `/reply` lines joined by newlines; null when there is none. */
  reply: string | null;
  /** `/sleep` before each response (the last one wins), capped at LIMITS.scripted.maxSleepMs. */
  sleepMs: number;
  /** `/pace MS`: a streamed response waits MS between its words (the last one wins), capped at LIMITS.scripted.maxPaceMs. */
  paceMs: number;
  /** `/fail`: every model call throws this message. */
  fail: string | null;
  /** `/flaky N`: the first N attempts of each model call fail as a transient provider error (retried: ADR 042). */
  flaky: number;
  /** `/loop`: once the actions are done, this call repeats on every turn. */
  loop: { tool: string; args: Record<string, unknown> } | null;
  /** `/cite`: the final answer ends with a citation of every receipt the run has shown the model. */
  cite: boolean;
  /** `/tokens N`: each response reports N tokens of usage (input + output), so token budgets are testable. */
  tokens: number | null;
  /** `/say TEXT`: each tool-calling response carries TEXT too (a partial answer beside its calls). */
  say: string | null;
  /** Lines that look like directives but can't be read; the model call fails naming them. */
  errors: string[];
  /** True when any directive line was present. */
  hasDirectives: boolean;
};

/** A turn with nothing to act on: the model just answers. */
export const NO_SCRIPT: Readonly<Script> = Object.freeze({
  actions: Object.freeze([]) as unknown as ScriptAction[],
  reply: null,
  sleepMs: 0,
  paceMs: 0,
  fail: null,
  flaky: 0,
  loop: null,
  cite: false,
  tokens: null,
  say: null,
  errors: Object.freeze([]) as unknown as string[],
  hasDirectives: false,
});

const DIRECTIVE = /^\/(call|also|ask|reply|sleep|pace|fail|flaky|loop|cite|tokens|say)(?:\s+([\s\S]*))?$/;
/** `/flaky` at most: one less than MODEL_MAX_ATTEMPTS can be at most, so a call can still get through. */
export const MAX_FLAKY = 9;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function parseScript(text: string): Script {
  const script: Script = { actions: [], reply: null, sleepMs: 0, paceMs: 0, fail: null, flaky: 0, loop: null, cite: false, tokens: null, say: null, errors: [], hasDirectives: false };
  const replies: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const match = DIRECTIVE.exec(raw.trim());
    if (!match) continue;
    script.hasDirectives = true;
    const [, name, rest = ''] = match;
    const arg = rest.trim();
    switch (name) {
      case 'call':
      case 'loop': {
        const call = parseToolCall(arg);
        if (typeof call === 'string') script.errors.push(`/${name} ${arg}: ${call}`);
        else if (name === 'call') script.actions.push({ kind: 'call', ...call });
        else script.loop = call;
        break;
      }
      case 'also': {
        const call = parseToolCall(arg);
        const last = script.actions.at(-1);
        if (typeof call === 'string') script.errors.push(`/also ${arg}: ${call}`);
        else if (last?.kind !== 'call') script.errors.push('/also: must follow a /call (it adds a call to the same response)');
        else (last.also ??= []).push(call);
        break;
      }
      case 'ask':
        if (arg) script.actions.push({ kind: 'ask', question: arg });
        else script.errors.push('/ask: the question is missing');
        break;
      case 'reply':
        replies.push(arg);
        break;
      case 'sleep': {
        const ms = Number(arg);
        if (!/^\d+$/.test(arg) || !Number.isSafeInteger(ms)) script.errors.push(`/sleep ${arg}: expected milliseconds`);
        else script.sleepMs = Math.min(ms, LIMITS.scripted.maxSleepMs);
        break;
      }
      case 'pace': {
        const ms = Number(arg);
        if (!/^\d+$/.test(arg) || !Number.isSafeInteger(ms)) script.errors.push(`/pace ${arg}: expected milliseconds`);
        else script.paceMs = Math.min(ms, LIMITS.scripted.maxPaceMs);
        break;
      }
      case 'fail':
        script.fail = arg || 'Scripted failure';
        break;
      case 'flaky': {
        const n = Number(arg);
        if (!/^\d+$/.test(arg) || n < 1 || n > MAX_FLAKY) script.errors.push(`/flaky ${arg}: expected 1 to ${MAX_FLAKY} failed attempts`);
        else script.flaky = n;
        break;
      }
      case 'say':
        if (arg) script.say = arg;
        else script.errors.push('/say: the text is missing');
        break;
      case 'tokens': {
        const n = Number(arg);
        if (!/^\d+$/.test(arg) || !Number.isSafeInteger(n) || n < 1 || n > LIMITS.scripted.maxTokens) script.errors.push(`/tokens ${arg}: expected 1 to ${LIMITS.scripted.maxTokens} tokens`);
        else script.tokens = n;
        break;
      }
      case 'cite':
        if (arg) script.errors.push('/cite: takes no argument');
        else script.cite = true;
        break;
    }
  }
  if (replies.length) script.reply = replies.join('\n');
  return script;
}

/** `TOOL {json}` → the tool name and its argument object, or a reason it can't be read. */
function parseToolCall(arg: string): { tool: string; args: Record<string, unknown> } | string {
  const space = arg.search(/\s/);
  const tool = space === -1 ? arg : arg.slice(0, space);
  const json = space === -1 ? '' : arg.slice(space + 1).trim();
  if (!TOOL_NAME.test(tool)) return 'expected a tool name';
  if (!json) return { tool, args: {} };
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return 'the arguments are not valid JSON';
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return 'the arguments must be a JSON object';
  return { tool, args: args as Record<string, unknown> };
}
