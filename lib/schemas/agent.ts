import { z } from 'zod';
import { LIMITS } from '../limits';
import { DEFAULT_MODEL, MODEL_FORMAT_HINT, parseModel } from '../models';
import { MCP_SERVER_RULE } from '../mcp/approval-rule';
import { MCP_TOOL_NAME } from '../mcp/tool-name';
import { ALL_TOOL_NAMES, TOOL_GROUP_NAMES } from '../tool-groups';
import { boundedText } from './common';
import { agentSkillsSchema } from './skill';

/**
 * The Custom Agent's fields, validated by the same schemas in the browser form and in the API.
 * Bounds come from LIMITS; characters are counted as code points (an emoji counts once).
 */
const L = LIMITS.agent;

// Line breaks and other control characters would make a name unreadable in lists and @mentions.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** The name is trimmed first, so "  Writer " is stored as "Writer" and whitespace alone is empty. */
export const agentNameSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .pipe(boundedText({ minChars: L.name.minChars, maxChars: L.name.maxChars }))
  .refine((v) => !CONTROL_CHARS.test(v), 'Must not contain line breaks or control characters');

export const agentDescriptionSchema = boundedText({ maxChars: L.description.maxChars });
export const agentInstructionsSchema = boundedText({ maxChars: L.instructions.maxChars });

export const agentModelSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .refine((v) => v.length <= L.model.maxChars && parseModel(v) !== null, MODEL_FORMAT_HINT);

/** A list of names drawn from an allowlist, without repeats; errors name the offending entries. */
function nameList(known: readonly string[], what: string, max: number, alsoKnown: (name: string) => boolean = () => false) {
  return z.array(z.string({ error: `Each ${what} must be text` }), { error: 'Must be a list' }).superRefine((list, ctx) => {
    const unknown = list.filter((v) => !known.includes(v) && !alsoKnown(v));
    if (unknown.length) {
      ctx.addIssue({ code: 'custom', message: `Unknown ${what}: ${unknown.slice(0, 5).join(', ')}` });
      return;
    }
    const seen = new Set<string>();
    const repeated = list.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
    if (repeated.length) ctx.addIssue({ code: 'custom', message: `Listed more than once: ${repeated.join(', ')}` });
    if (list.length > max) ctx.addIssue({ code: 'custom', message: `At most ${max} entries` });
  });
}

/** Tool groups the agent may use; an empty list means every group. */
export const agentToolGroupsSchema = nameList(TOOL_GROUP_NAMES, 'tool group', TOOL_GROUP_NAMES.length);
/**
 * Tools whose calls pause for the person's approval before they run: built-in tools, MCP tools by the name the
 * model sees (lib/mcp/tool-name.ts), and whole MCP servers (`mcp_server:<id>`, lib/mcp/approval-rule.ts). The server
 * checks that an MCP name or server rule is of a server the agent uses (catalog.ts).
 */
export const agentApprovalToolsSchema = nameList(ALL_TOOL_NAMES, 'tool', L.approvalTools.max, (name) => MCP_TOOL_NAME.test(name) || MCP_SERVER_RULE.test(name));

const M = L.mcp;
const mcpToolNameSchema = z
  .string({ error: 'Each tool must be named' })
  .refine((v) => v.length > 0 && [...v].length <= M.toolNameChars, `Each tool name must be 1 to ${M.toolNameChars} characters`)
  .refine((v) => !CONTROL_CHARS.test(v), 'A tool name must not contain line breaks or control characters');

/** One server the agent uses: all its tools (now and those it adds later), or the tools named. */
export const agentMcpServerSelectionSchema = z.strictObject(
  {
    serverId: z
      .string({ error: 'Must be a server id' })
      .refine((v) => v.length > 0 && v.length <= M.serverIdChars && !CONTROL_CHARS.test(v), 'Must be a server id'),
    tools: z.union(
      [
        z.literal('all'),
        z
          .array(mcpToolNameSchema, { error: 'Must be "all" or a list of tool names' })
          .min(1, 'Choose at least one tool, or the whole server')
          .max(M.toolsPerServer, `At most ${M.toolsPerServer} tools of one server`)
          .refine((tools) => new Set(tools).size === tools.length, 'A tool is listed more than once'),
      ],
      { error: 'Must be "all" or a list of tool names' },
    ),
  },
  { error: 'Each entry must be { serverId, tools }' },
);

/**
 * The MCP servers the agent uses, and which of their tools. Independent of toolGroups: MCP tools come from this
 * selection only. The server checks each server is one the owner may use (catalog.ts); a deleted server's entry is
 * left out of runs.
 */
export const agentMcpToolsSchema = z
  .array(agentMcpServerSelectionSchema, { error: 'Must be a list of servers' })
  .max(M.servers, `At most ${M.servers} servers`)
  .refine((list) => new Set(list.map((s) => s.serverId)).size === list.length, 'A server is listed more than once');

const turnsMessage = `Must be a whole number from ${L.maxTurns.min} to ${L.maxTurns.max}`;
export const agentMaxTurnsSchema = z
  .number({ error: turnsMessage })
  .int(turnsMessage)
  .min(L.maxTurns.min, turnsMessage)
  .max(L.maxTurns.max, turnsMessage);

const timeLimitMessage = `Must be a whole number of minutes from ${LIMITS.run.timeLimitMinutes.min} to ${LIMITS.run.timeLimitMinutes.max}`;
/** Wall-clock limit of one run of this agent, in minutes; null = the instance default (LIMITS.run). */
export const agentTimeLimitSchema = z
  .number({ error: timeLimitMessage })
  .int(timeLimitMessage)
  .min(LIMITS.run.timeLimitMinutes.min, timeLimitMessage)
  .max(LIMITS.run.timeLimitMinutes.max, timeLimitMessage)
  .nullable();

const compactMessage = `Must be a whole number of tokens from ${LIMITS.compaction.atTokens.min.toLocaleString('en-US')} to ${LIMITS.compaction.atTokens.max.toLocaleString('en-US')}`;
/** Compact the model's input once it passes this many tokens; null = the instance default (LIMITS.compaction). */
export const agentCompactAtTokensSchema = z
  .number({ error: compactMessage })
  .int(compactMessage)
  .min(LIMITS.compaction.atTokens.min, compactMessage)
  .max(LIMITS.compaction.atTokens.max, compactMessage)
  .nullable();

const wholeIn = (min: number, max: number, unit = '') =>
  `Must be a whole number${unit ? ` of ${unit}` : ''} from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
const wholeNumber = (range: { min: number; max: number }, unit = '') => {
  const message = wholeIn(range.min, range.max, unit);
  return z.number({ error: message }).int(message).min(range.min, message).max(range.max, message);
};

/** Tokens (input + output) one run may spend before it must answer; null = the instance default (LIMITS.run). */
export const agentTokenBudgetSchema = wholeNumber(LIMITS.run.tokenBudget, 'tokens').nullable();

const D = LIMITS.delegation;
/** How deep delegation may go below a run of this agent (a child is its parent's depth + 1). */
export const agentMaxDepthSchema = wholeNumber(D.depth);
/** Children one run may start in all. */
export const agentMaxChildrenSchema = wholeNumber(D.childrenPerRun);
/** Children of one run running at once (the server's own bound applies too). */
export const agentMaxConcurrentChildrenSchema = wholeNumber(D.concurrent);

/** Agent ids listed in allowedSubagents: at most as many as an account may have agents. */
export const ALLOWED_SUBAGENTS_MAX = 200;
const AGENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which of the owner's agents this agent may hand tasks to with `task`: 'all', 'none' or a list of agent ids
 * (the server checks that each is the owner's: server/agents/catalog.ts). The agent itself as a general-purpose
 * helper is always allowed.
 */
export const agentAllowedSubagentsSchema = z.union(
  [
    z.literal('all'),
    z.literal('none'),
    z
      .array(z.string({ error: 'Each entry must be an agent id' }).regex(AGENT_ID, 'Each entry must be an agent id'), { error: 'Must be "all", "none" or a list of agent ids' })
      .max(ALLOWED_SUBAGENTS_MAX, `At most ${ALLOWED_SUBAGENTS_MAX} agents`)
      .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'Listed more than once'),
  ],
  { error: 'Must be "all", "none" or a list of agent ids' },
);

/** POST body and the agent form's values: name is required, everything else has a default. */
export const agentCreateSchema = z.strictObject({
  name: agentNameSchema,
  description: agentDescriptionSchema.default(''),
  instructions: agentInstructionsSchema.default(''),
  model: agentModelSchema.default(DEFAULT_MODEL),
  toolGroups: agentToolGroupsSchema.default([]),
  approvalTools: agentApprovalToolsSchema.default([]),
  mcpTools: agentMcpToolsSchema.default([]),
  skills: agentSkillsSchema.default([]),
  maxTurns: agentMaxTurnsSchema.default(L.maxTurns.default),
  timeLimitMinutes: agentTimeLimitSchema.default(null),
  compactAtTokens: agentCompactAtTokensSchema.default(null),
  tokenBudget: agentTokenBudgetSchema.default(null),
  allowedSubagents: agentAllowedSubagentsSchema.default('all'),
  maxDepth: agentMaxDepthSchema.default(D.depth.default),
  maxChildren: agentMaxChildrenSchema.default(D.childrenPerRun.default),
  maxConcurrentChildren: agentMaxConcurrentChildrenSchema.default(D.concurrent.default),
});

/** PATCH body: any subset of the fields; absent fields keep their value. */
export const agentPatchSchema = z.strictObject({
  name: agentNameSchema.optional(),
  description: agentDescriptionSchema.optional(),
  instructions: agentInstructionsSchema.optional(),
  model: agentModelSchema.optional(),
  toolGroups: agentToolGroupsSchema.optional(),
  approvalTools: agentApprovalToolsSchema.optional(),
  mcpTools: agentMcpToolsSchema.optional(),
  skills: agentSkillsSchema.optional(),
  maxTurns: agentMaxTurnsSchema.optional(),
  timeLimitMinutes: agentTimeLimitSchema.optional(),
  compactAtTokens: agentCompactAtTokensSchema.optional(),
  tokenBudget: agentTokenBudgetSchema.optional(),
  allowedSubagents: agentAllowedSubagentsSchema.optional(),
  maxDepth: agentMaxDepthSchema.optional(),
  maxChildren: agentMaxChildrenSchema.optional(),
  maxConcurrentChildren: agentMaxConcurrentChildrenSchema.optional(),
});

/**
 * `GET /api/v1/agents?query=`: free text matched literally against name and description, bounded in characters (an
 * emoji is one) and refused with a control character, as the activity feed's text filter is.
 */
export const agentQuerySchema = z.string().trim().pipe(boundedText({ maxChars: LIMITS.agent.queryChars }));

export type AgentCreateInput = z.input<typeof agentCreateSchema>;
export type AgentCreate = z.output<typeof agentCreateSchema>;
export type AgentPatchInput = z.input<typeof agentPatchSchema>;
export type AgentPatch = z.output<typeof agentPatchSchema>;
export type AgentMcpSelection = z.output<typeof agentMcpToolsSchema>;

// The form's field list and starting values live without zod, for the form's first load (ADR 053).
export { AGENT_FIELDS, NEW_AGENT_DEFAULTS, type AgentField } from './agent-fields';
