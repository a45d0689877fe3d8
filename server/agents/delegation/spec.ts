import 'server-only';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { acceptanceCriteriaSchema } from '@/lib/schemas/acceptance-criteria';
import { boundedText } from '@/lib/schemas/common';
import { jsonBytes } from '@/lib/text-bounds';

const L = LIMITS.delegation;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What the model sees of `task`'s arguments (plain types with descriptions). The bounds are checked by
 * taskRequestSchema inside the tool, so a request past them is refused as a typed `invalid_arguments` error that
 * names the field, rather than LangChain's generic schema failure.
 */
export const taskToolArgs = z.object({
  description: z.string().describe(`A short label for the child's work (at most ${L.description.maxChars} characters)`),
  prompt: z.string().describe('The complete task for the child: it sees only this (spawn) or your conversation so far plus this (fork)'),
  subagent: z.string().optional().describe('Name or id of one of the offered agents; default: yourself as a general-purpose helper'),
  provider: z.string().optional().describe("How the child starts: 'spawn' (only the task, default) or 'fork' (your completed turns plus the task)"),
  persona: z.string().optional().describe("Replaces the child's instructions for this child only"),
  tools: z.array(z.string()).optional().describe('Only these of its tools are available to the child (by tool name)'),
  output_schema: z.record(z.string(), z.unknown()).optional().describe('An object-rooted JSON Schema: the child must finish by submitting a value that matches it'),
  acceptance_criteria: z.array(z.string()).optional().describe('Checks the result must satisfy (the child is told to report which are not met)'),
});

/** The bounded request, as stored in delegations.spec (with the limits snapshot the scheduler reads). */
export const taskRequestSchema = z.object({
  description: boundedText({ maxChars: L.description.maxChars, minChars: 1 }),
  prompt: boundedText({ maxChars: L.prompt.maxChars, maxBytes: L.prompt.maxBytes, minChars: 1 }),
  subagent: z.string().min(1).max(200).optional(),
  provider: z.string().min(1).max(64).optional(),
  persona: boundedText({ maxChars: L.persona.maxChars, minChars: 1 }).optional(),
  tools: z.array(z.string().regex(TOOL_NAME, 'Not a tool name')).max(100).optional(),
  output_schema: z
    .record(z.string(), z.unknown())
    .refine((s) => jsonBytes(s) <= L.outputSchemaBytes, `Must be at most ${L.outputSchemaBytes} bytes of JSON`)
    .optional(),
  acceptance_criteria: acceptanceCriteriaSchema.optional(),
});

export type TaskRequest = z.infer<typeof taskRequestSchema>;

/** The delegation settings of a run, fixed when it started (its agent's, with the depth bound inherited downwards). */
export type DelegationSettings = {
  allowedSubagents: 'all' | 'none' | string[];
  maxDepth: number;
  maxChildren: number;
  /** min(agent.maxConcurrentChildren, LIMITS.delegation.concurrent.server). */
  concurrency: number;
};

/** delegations.spec: the request, who asked, and what was fixed when it was accepted. */
export type DelegationSpec = {
  request: TaskRequest;
  /** Whether the child may act on directives in its task text (docs/decisions/024): the parent's turn was the person's. */
  trusted: boolean;
  limits: { concurrency: number; maxDepth: number };
  /** The parent's settings when the first child was accepted (pins them across a restart). */
  settings: DelegationSettings;
  /** Minutes the child may run: min(LIMITS.delegation.childTimeLimitMinutes, the parent's remaining time). */
  timeLimitMinutes?: number;
  /**
   * The child's tool filter, fixed when it was accepted: its request's tools (or, without them, the parent's own
   * allowlist) and the parent's denylist carried down, so no descendant gets a tool an ancestor was denied.
   */
  toolFilter?: ToolFilter;
};

/** A run's tool filter (its context's toolAllowlist / toolDenylist): absent allow = every tool of its agent. */
export type ToolFilter = { allow?: string[]; deny: string[] };

/** Typed refusals a `task` call returns as an error tool result (structured JSON content). */
export type TaskErrorCode =
  | 'invalid_arguments'
  | 'unknown_subagent'
  | 'subagent_not_allowed'
  | 'unknown_provider'
  | 'unsupported_capability'
  | 'depth_exceeded'
  | 'children_exhausted'
  | 'invalid_output_schema'
  | 'unknown_tool'
  | 'tool_not_allowed'
  | 'budget_reached'
  | 'quota_reached';

export class TaskRefusal extends Error {
  constructor(
    readonly code: TaskErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TaskRefusal';
  }

  toJSON() {
    return { error: this.code, message: this.message, ...this.details };
  }
}
