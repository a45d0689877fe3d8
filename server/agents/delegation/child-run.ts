import 'server-only';
import type { Agent } from '@/server/db/schema';
import type { RunSetup } from '../run-setup';
import type { RunContext } from '../run-types';
import { SUBMIT_OUTPUT_TOOL, submitOutputTool } from './output-capture';
import { childContextOf } from './settings';

/**
 * How the executor runs a delegated child, from its server-written run context (null for every other run): delegation's
 * run-setup hook (../run-setup.ts), registered at start-up. The child's time limit is min of the delegation bound and
 * the parent's remaining time. The tool filter is applied by the tool registry from the same context (toolAllowlist / toolDenylist), so the prompt, the
 * execution and the assembly record agree. A persona replaces the owner's instructions for this child: the system
 * prompt keeps only the framework's text, and the persona — written by a model, so never system text — opens the
 * child's task message (launch.ts). The scripted model still takes its directives from the catalog agent's
 * owner-written instructions.
 */
export function delegatedRunSetup(agent: Agent, context: RunContext): RunSetup | null {
  const child = childContextOf(context);
  if (!child) return null;
  const { persona, outputSchema, timeLimitMinutes } = child.delegation;
  return {
    agent: persona ? { ...agent, instructions: '' } : agent,
    graphOptions: {
      ...(persona ? { modelAgent: agent } : {}),
      ...(outputSchema ? { extraTools: [submitOutputTool(outputSchema)], finishTools: [SUBMIT_OUTPUT_TOOL] } : {}),
    },
    ...(timeLimitMinutes ? { timeLimitMinutes } : {}),
  };
}
