import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { compileOutputSchema, type OutputSchemaCheck } from './output-schema';

/** The capture tool a child with an output schema must finish through (its arguments are the output). */
export const SUBMIT_OUTPUT_TOOL = 'submit_output';

/** The check of an output schema, or a typed refusal (output-schema.ts: RE2 patterns, one validator per schema). */
export function outputValidator(schema: Record<string, unknown>): OutputSchemaCheck {
  return compileOutputSchema(schema).check;
}

/**
 * The submit_output tool: its argument schema is the output schema (regexes as text: LangChain checks a tool's
 * schema with backtracking RegExps), so the model is shown what to submit; the check here is the full one.
 */
export function submitOutputTool(schema: Record<string, unknown>): StructuredToolInterface {
  const { check, modelSchema } = compileOutputSchema(schema);
  return tool(
    async (args: unknown) => {
      const checked = check(args);
      if (!checked.ok) throw new Error(`The output does not match the schema: ${checked.reason}`);
      return 'Output received. Your work is finished.';
    },
    {
      name: SUBMIT_OUTPUT_TOOL,
      description: 'Finish your task by submitting your result as this structured value (call it exactly once, last).',
      schema: modelSchema as never,
    },
  );
}

export type CapturedOutput = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * What the child submitted: the arguments of its last submit_output call, validated again here (the tool's own
 * check could be bypassed by nothing, but the result the parent receives is decided from the thread alone).
 */
export function capturedOutput(messages: readonly BaseMessage[], schema: Record<string, unknown>): CapturedOutput {
  let args: unknown;
  let found = false;
  for (let i = messages.length - 1; i >= 0 && !found; i--) {
    const m = messages[i]!;
    if (!AIMessage.isInstance(m)) continue;
    const call = (m.tool_calls ?? []).findLast((c) => c.name === SUBMIT_OUTPUT_TOOL);
    if (call) {
      args = call.args;
      found = true;
    }
  }
  if (!found) return { ok: false, reason: `The child finished without submitting its output through ${SUBMIT_OUTPUT_TOOL}` };
  const checked = outputValidator(schema)(args);
  if (!checked.ok) return { ok: false, reason: `The child's output does not match the schema: ${checked.reason}` };
  return { ok: true, value: args };
}
