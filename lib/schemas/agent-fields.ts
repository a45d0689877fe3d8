import { LIMITS } from '../limits';
import { DEFAULT_MODEL } from '../models';
import type { AgentSettings } from '../types/agent';

// No zod here (type imports only): the agent form loads these with the page and its schema only on first use.

/** The editable fields in form order: server field errors are matched to these. */
export const AGENT_FIELDS = [
  'name',
  'description',
  'instructions',
  'model',
  'toolGroups',
  'approvalTools',
  'mcpTools',
  'skills',
  'maxTurns',
  'timeLimitMinutes',
  'compactAtTokens',
  'tokenBudget',
  'allowedSubagents',
  'maxDepth',
  'maxChildren',
  'maxConcurrentChildren',
] as const;
export type AgentField = (typeof AGENT_FIELDS)[number];

/** The form's starting values for a new agent. */
export const NEW_AGENT_DEFAULTS: AgentSettings = {
  name: '',
  description: '',
  instructions: '',
  model: DEFAULT_MODEL,
  toolGroups: [],
  approvalTools: [],
  mcpTools: [],
  skills: [],
  maxTurns: LIMITS.agent.maxTurns.default,
  timeLimitMinutes: null,
  compactAtTokens: null,
  tokenBudget: null,
  allowedSubagents: 'all',
  maxDepth: LIMITS.delegation.depth.default,
  maxChildren: LIMITS.delegation.childrenPerRun.default,
  maxConcurrentChildren: LIMITS.delegation.concurrent.default,
};
