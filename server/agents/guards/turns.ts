import 'server-only';
import type { ResponseGuard } from './types';
import { turnMessages } from './notes';
import { withoutToolCalls } from './without-tool-calls';

export const maxTurnsNote = (maxTurns: number) => `Stopped after ${maxTurns} model ${maxTurns === 1 ? 'turn' : 'turns'} (max turns)`;

/**
 * Max turns: the agent's last allowed model turn may answer but not call tools (their results would need one turn
 * more). Its calls are removed; the run then ends — completed when that response has text (a usable partial
 * answer), failed otherwise (thread.ts outcomeOf) — with stopReason turn_capped.
 */
export const turnGuard: ResponseGuard = {
  name: 'max-turns',
  check({ message, messages, agent }) {
    const turn = turnMessages(messages).filter((m) => m.getType() === 'ai').length + 1;
    if (turn < agent.maxTurns || !message.tool_calls?.length) return null;
    return { message: withoutToolCalls(message), stopReason: 'turn_capped', note: maxTurnsNote(agent.maxTurns) };
  },
};
