/**
 * How an agent was assembled for one run, recorded when the run starts. Its fingerprint is the SHA-256 (hex) of the
 * canonical JSON of this descriptor (keys sorted, arrays in the order given here: sorted where noted).
 */
export type AssemblyDescriptor = {
  /** The model that runs, after any override. */
  model: string;
  /** sha256 hex of the system instructions the model receives (framework text + the owner's instructions). */
  instructionsHash: string;
  /**
   * Sorted by name. A tool from an MCP server also names its origin (`mcp:<server>/<tool>`) and the sha256 of the
   * schema the server gave it, and `deferred` when its schema was withheld until `tool_search` loaded it.
   */
  tools: Array<{ name: string; group: string; origin?: string; schemaHash?: string; deferred?: true }>;
  /** Sorted. */
  approvalTools: string[];
  /**
   * Tools the setup names but the run could not be offered, and why (ADR 057): an MCP server never listed
   * (`origin` is `mcp:<server>`). Sorted by origin; absent when there are none (so older fingerprints stand).
   */
  unavailable?: UnavailableTools;
  /**
   * The skills attached to the agent (ADR 061), by the pack's content hash: editing one changes the fingerprint
   * ("Setup changed"). Sorted by name; absent when there are none.
   */
  skills?: Array<{ id: string; name: string; hash: string }>;
  limits: {
    maxTurns: number;
    timeLimitMinutes: number;
    /** Compaction threshold in tokens (the agent's or the default). */
    compactAtTokens: number;
    /** Token budget per run (the agent's or the instance default; null in records made before the token guard). */
    tokenBudget: number | null;
  };
  /** The ordered middleware/guard list the graph applies around model and tool calls. */
  middleware: string[];
  appVersion: string;
};

export type UnavailableTools = Array<{ origin: string; reason: 'never_listed' }>;

/** A descriptor field that differs from the conversation's previous run ("Setup changed"). Dotted paths, e.g. "limits.maxTurns". */
export type AssemblyChange = { field: string; before: unknown; after: unknown };
