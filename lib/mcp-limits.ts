/**
 * The bounds of MCP servers and their calls (issue 28, ADR 054), shared by the forms, the API and the client. Kept
 * beside lib/limits.ts, not in it, while that file is being reshaped; the numbers are as binding.
 */
export const MCP_LIMITS = {
  /** A server's name: it appears in provenance (`mcp:<name>/<tool>`), so a short slug. */
  name: { maxChars: 40 },
  /** Servers one account may register (deployment-wide ones don't count). */
  perAccount: 20,
  /** Deployment-wide servers. */
  deploymentWide: 50,
  command: { maxChars: 1_000 },
  args: { max: 64, maxChars: 2_000 },
  url: { maxChars: 2_000 },
  /** stdio env and http headers: entries, name and value lengths. */
  env: { max: 64, nameChars: 128, valueChars: 4_000 },
  headers: { max: 32, nameChars: 128, valueChars: 4_000 },
  timeoutMs: { min: 1_000, max: 600_000, default: 60_000 },
  maxConcurrent: { min: 1, max: 64, default: 4 },
  /**
   * Discovery: at most `max` tools are kept (pages followed up to `pages`); a tool's description is cut at
   * descriptionChars; a tool whose input schema is larger than schemaBytes (as JSON) is left out, and so is one whose
   * name breaks the MCP spec's rule (1–128 of A–Z a–z 0–9 _ - .).
   */
  tools: { max: 1_000, pages: 100, descriptionChars: 2_000, schemaBytes: 64 * 1024 },
  /** A call's arguments, as JSON. */
  argumentsBytes: 256 * 1024,
  /**
   * A call's result as the run sees it: text (all text parts and resource texts together) up to textChars, at most
   * `parts` parts; the rest is cut and the result marked truncated.
   */
  result: { textChars: 100_000, parts: 100, uriChars: 2_000 },
  /** One JSON-RPC message from a server; a larger one ends the connection (a call in flight fails). */
  messageBytes: 16 * 1024 * 1024,
  /** A connection without calls for this long is closed (a stdio server's process ends). */
  idleStopMs: 5 * 60_000,
  /** After a crash, the next start waits restartBackoff.minMs, doubling per crash in a row up to maxMs. */
  restartBackoff: { minMs: 500, maxMs: 30_000 },
  /** A refresh asked for sooner than this after the last read gets that read (a flood of refreshes can't flood the server). */
  refreshMinMs: 2_000,
  /** Connecting (spawn + initialize, or the HTTP handshake). */
  connectTimeoutMs: 15_000,
  /** A server's stderr kept for error messages (its last bytes). */
  stderrTailChars: 2_000,
  /** A discovery's error as stored and shown (one line; ADR 057). */
  discoveryErrorChars: 1_000,
} as const;
