import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { LIMITS } from '@/lib/limits';
import type { ResponseGuard } from './types';
import { turnMessages } from './notes';
import { withoutToolCalls } from './without-tool-calls';

type Call = { name: string; args: unknown };

/** JSON with object keys sorted at every level, so {a,b} and {b,a} are the same arguments. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** One response's tool calls as a set: names and arguments, order-insensitive (a repeated call counts once). */
export const callSetKey = (calls: readonly Call[]): string => [...new Set(calls.map((c) => `${c.name}\u0000${stableJson(c.args)}`))].sort().join('\u0001');

const callsOf = (m: BaseMessage): Call[] => (AIMessage.isInstance(m) ? (m.tool_calls ?? []) : []);

/**
 * Why the calls loop, or null: the same set of calls as the previous `repeatedCalls - 1` responses of this turn
 * in a row, or `sameTool` responses in a row that call only one and the same tool, whatever its arguments. Calls are
 * counted per response: many calls of one tool side by side in one response (a batch of `task` calls, say) are one
 * step of work, not a loop.
 */
export function loopOf(previous: readonly BaseMessage[], calls: readonly Call[], limits = LIMITS.guards.loop): string | null {
  if (!calls.length) return null;
  const responses = previous.filter((m) => m.getType() === 'ai').map(callsOf);
  const key = callSetKey(calls);
  let same = 1;
  for (let i = responses.length - 1; i >= 0 && same < limits.repeatedCalls && callSetKey(responses[i]!) === key; i--) same++;
  if (same >= limits.repeatedCalls) return `the same tool calls ${limits.repeatedCalls} times in a row`;
  const tool = calls[0]!.name;
  const onlyTool = (list: readonly Call[]) => list.length > 0 && list.every((c) => c.name === tool);
  if (!onlyTool(calls)) return null;
  let run = 1;
  for (let r = responses.length - 1; r >= 0 && run < limits.sameTool && onlyTool(responses[r]!); r--) run++;
  return run >= limits.sameTool ? `${toolLabel(tool)} ${limits.sameTool} times in a row` : null;
}

/** A tool name as the note may quote it: the model chose it, so anything but a plain tool name is not repeated. */
const toolLabel = (name: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(name) ? name : 'one tool');

/** Loops: the calls are removed and the agent must answer with what it has (stopReason loop_capped). */
export const loopGuard: ResponseGuard = {
  name: 'loop-guard',
  check({ message, messages }) {
    const loop = loopOf(turnMessages(messages), message.tool_calls ?? []);
    if (!loop) return null;
    return {
      message: withoutToolCalls(message),
      stopReason: 'loop_capped',
      note: `Loop limit reached: you called ${loop}. Those calls were not run. Answer now with what you have; no more tool calls.`,
    };
  },
};
