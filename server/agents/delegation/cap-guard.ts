import 'server-only';
import { AIMessage } from '@langchain/core/messages';
import type { ResponseGuard } from '../guards/types';
import { contentText } from '../messages';
import { remainingChildren } from './ledger';
import { delegationSettingsFor } from './settings';
import { TASK_TOOL } from './task-tool';

export const DELEGATION_CAPPED_NOTE =
  'Delegation limit reached: this run has started all the children it may. Its task calls were not run. Finish with the results you have.';

/**
 * When a run has no children left (its total, counted from the durable ledger), the response's `task` calls are
 * removed and a note says so. With nothing else to call, the agent must answer now (stopReason delegation_capped);
 * its other tool calls still run, and the note reaches it after their results. Registered with the response guards
 * at start-up (./register.ts), after the built-in ones.
 */
export const delegationCapGuard: ResponseGuard = {
  name: 'delegation-cap',
  async check({ message, context }) {
    const calls = message.tool_calls ?? [];
    if (!calls.some((c) => c.name === TASK_TOOL)) return null;
    const settings = await delegationSettingsFor(context);
    if ((await remainingChildren(context.runId, settings.maxChildren)) > 0) return null;
    const kept = calls.filter((c) => c.name !== TASK_TOOL);
    const { tool_calls: _calls, function_call: _fn, ...kwargs } = message.additional_kwargs ?? {};
    const trimmed = new AIMessage({
      ...(message.id ? { id: message.id } : {}),
      // Text only: provider-specific copies of the calls (tool_use blocks, additional_kwargs) go with them.
      content: contentText(message.content),
      additional_kwargs: kwargs,
      response_metadata: message.response_metadata ?? {},
      ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
      tool_calls: kept,
    });
    return { message: trimmed, note: DELEGATION_CAPPED_NOTE, ...(kept.length ? {} : { stopReason: 'delegation_capped' as const }) };
  },
};
