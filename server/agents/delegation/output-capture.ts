import 'server-only';
import { Ajv, type ValidateFunction } from 'ajv';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { TaskRefusal } from './spec';

/** The capture tool a child with an output schema must finish through (its arguments are the output). */
export const SUBMIT_OUTPUT_TOOL = 'submit_output';

// strict: false — a schema written by a model may carry keywords ajv does not know (title, examples, …); they are
// ignored, while every validation keyword it does know is enforced.
const ajv = new Ajv({ strict: false, allErrors: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The validator of an output schema, or a typed refusal: the schema must be object-rooted (`"type": "object"`) and
 * compile. (Its size is bounded by taskRequestSchema.)
 */
export function outputValidator(schema: Record<string, unknown>): ValidateFunction {
  const cached = compiled.get(schema);
  if (cached) return cached;
  if (schema.type !== 'object') throw new TaskRefusal('invalid_output_schema', 'output_schema must be a JSON Schema whose root has "type": "object"');
  try {
    const validate = ajv.compile(schema);
    compiled.set(schema, validate);
    return validate;
  } catch (err) {
    throw new TaskRefusal('invalid_output_schema', `output_schema is not a usable JSON Schema: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500));
  }
}

/** The submit_output tool: its argument schema is the output schema, so the model is shown what to submit. */
export function submitOutputTool(schema: Record<string, unknown>): StructuredToolInterface {
  const validate = outputValidator(schema);
  return tool(
    async (args: unknown) => {
      if (!validate(args)) throw new Error(`The output does not match the schema: ${ajv.errorsText(validate.errors)}`);
      return 'Output received. Your work is finished.';
    },
    {
      name: SUBMIT_OUTPUT_TOOL,
      description: 'Finish your task by submitting your result as this structured value (call it exactly once, last).',
      schema: schema as never,
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
  const validate = outputValidator(schema);
  if (!validate(args)) return { ok: false, reason: `The child's output does not match the schema: ${ajv.errorsText(validate.errors)}` };
  return { ok: true, value: args };
}
