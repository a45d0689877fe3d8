/** A Custom Agent as the HTTP API returns it (dates are ISO 8601 strings). */
export type ApiAgent = {
  id: string;
  name: string;
  description: string;
  instructions: string;
  /** `scripted` or `provider:model`. */
  model: string;
  /** Allowed tool groups; empty means every group. */
  toolGroups: string[];
  /** Tools whose calls wait for the person's approval (built-in names, and MCP tools by the name the model sees). */
  approvalTools: string[];
  /** MCP servers the agent uses, each with all its tools ('all', now and later) or the tools named. */
  mcpTools: Array<{ serverId: string; tools: 'all' | string[] }>;
  /** The owner's skills (ids) the agent may read with read_skill; the prompt lists their names and descriptions. */
  skills: string[];
  maxTurns: number;
  /** Wall-clock limit of one run in minutes (1–120); null = the instance default (15 unless the operator changed it). */
  timeLimitMinutes: number | null;
  /** Compact the model's input once it passes this many tokens (1,000–1,000,000); null = the instance default (24,000 unless the operator changed it). */
  compactAtTokens: number | null;
  /** Tokens (input + output) one run may spend (1,000–10,000,000); null = the instance default (500,000 unless the operator changed it). */
  tokenBudget: number | null;
  /** Which of the owner's agents it may delegate to with `task`: 'all', 'none' or agent ids (itself always). */
  allowedSubagents: 'all' | 'none' | string[];
  /** Deepest delegation below its runs (1–5). */
  maxDepth: number;
  /** Children one run may start in all (1–50). */
  maxChildren: number;
  /** Children of one run at once (1–64; the server's limit applies too). */
  maxConcurrentChildren: number;
  createdAt: string;
  updatedAt: string;
};

/**
 * An agent's editable settings: what the agent form edits, and POST /api/v1/agents's body once its defaults are applied.
 * The schema's `AgentCreate` (lib/schemas/agent.ts) is this type exactly (test/agents-catalog/schema.test.ts checks
 * it), so zod-free modules such as the form's defaults (lib/schemas/agent-fields.ts) use it without importing the
 * schema.
 */
export type AgentSettings = Omit<ApiAgent, 'id' | 'createdAt' | 'updatedAt'>;

/** `GET /api/v1/agents` response. */
export type ApiAgentList = { agents: ApiAgent[] };
