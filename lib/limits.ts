import { limitFromEnv } from './env-limits';

/**
 * Text bounds that several fields share because they hold the same kind of text; a field whose bound is the same
 * number by chance (a skill's name, an agent's name) keeps its own, so changing one kind never moves another.
 */
/** A short label a person gives something inside a team: the team's name, a member's, a public state entry's title. */
const TITLE = { maxChars: 80, maxBytes: 160 } as const;
/** What a person writes to agents: a chat message, a team request, an answer to a member's question or an approval note. */
const MESSAGE = { maxChars: 4_000, maxBytes: 8_000 } as const;

/**
 * Every bound the product enforces, in one place. The browser and the server import the same numbers,
 * so a form can refuse exactly what the API would refuse. Operator overrides (SIGNUP_LIMIT_PER_HOUR, …) are read
 * once, when this module loads, through lib/env-limits.ts; in the browser the defaults apply.
 */
export const LIMITS = {
  agent: {
    name: { minChars: 1, maxChars: 64 },
    description: { maxChars: 500 },
    instructions: { maxChars: 8_000 },
    model: { maxChars: 200 },
    /** The agent list's search text (GET /api/v1/agents?query=). */
    queryChars: 200,
    maxTurns: { min: 1, max: 150, default: 25 },
    approvalTools: { max: 50 },
    /**
     * An agent's MCP selection (lib/schemas/agent.ts): servers it names, single tools per server (a whole server
     * takes all its tools instead), and the length of an MCP tool's own name (the MCP spec's 128).
     */
    mcp: { servers: 20, toolsPerServer: 100, toolNameChars: 128, serverIdChars: 64 },
  },
  user: {
    email: { maxChars: 254 },
    password: { minChars: 8, maxChars: 200 },
    name: { maxChars: 80 },
  },
  apiToken: { name: { minChars: 1, maxChars: 64 }, perUser: 20 },
  /**
   * Failed sign-ins (and wrong current passwords), sliding windows; see docs/decisions/008. A person mistyping
   * gets 5 tries a minute per (account, address); an address spraying many accounts gets 20 per 10 minutes; an
   * account guessed at from many addresses gets 50 per 15 minutes, high so that one stranger's address hits its
   * own limits long before the account's ceiling locks the owner out too.
   */
  signIn: {
    pair: { max: 5, windowMs: 60_000 },
    address: { max: 20, windowMs: 10 * 60_000 },
    account: { max: 50, windowMs: 15 * 60_000 },
    /** Sign-in POSTs one address may have in the server at once; more are refused before Next routes them. */
    concurrentPerAddress: 8,
  },
  /** Sign-up attempts (that reach account creation) per client address per window. SIGNUP_LIMIT_PER_HOUR overrides. */
  signUp: { perAddress: limitFromEnv('SIGNUP_LIMIT_PER_HOUR', 5), windowMs: 60 * 60_000 },
  /**
   * What one account may keep (409 'agent_limit' / 'conversation_limit' past it). Member conversations a team
   * creates count too. AGENT_LIMIT_PER_ACCOUNT and CONVERSATION_LIMIT_PER_ACCOUNT override.
   */
  quotas: {
    agentsPerAccount: limitFromEnv('AGENT_LIMIT_PER_ACCOUNT', 200),
    conversationsPerAccount: limitFromEnv('CONVERSATION_LIMIT_PER_ACCOUNT', 5_000),
  },
  /** Invitation links: single use, expiring after one of these choices. */
  invitation: { expiryDays: [1, 7, 30], defaultExpiryDays: 7, note: { maxChars: 200 }, maxOpen: 100 },
  team: {
    name: TITLE,
    goal: { maxChars: 2_000, maxBytes: 4_000 },
    minMembers: 2,
    maxMembers: 8,
    perOwner: 20,
    requests: 100,
    receipts: 100,
    chain: 12,
  },
  memberName: TITLE,
  task: MESSAGE,
  answer: MESSAGE,
  interruptResponse: { maxBytes: 8_000 },
  /**
   * maxSlotsPerOwnerWhenShared: an owner holding this many slots gets no more while another owner is present
   * (holds a slot, has admissible work, or did within sharedGraceMs); alone, it may fill all of them.
   * SCHEDULER_SHARED_GRACE_MS overrides the grace window. See docs/decisions/004.
   */
  scheduler: {
    maxActiveJobs: 8,
    stepTimeoutMs: 10_000,
    maxSlotsPerOwnerWhenShared: 6,
    sharedGraceMs: limitFromEnv('SCHEDULER_SHARED_GRACE_MS', 10 * 60_000),
  },
  /**
   * Several app processes on one Postgres database (ADR 033 §5): each heartbeats every heartbeatMs; a process whose
   * heartbeat is older than leaseMs is dead, and its teams and runs are taken over (handover ≤ leaseMs + heartbeatMs).
   * A process that finds its last recorded heartbeat older than leaseMs, or cannot reach the database for longer than
   * selfFenceMs, stops at once: the others may be taking over. Sized for issue 31's bound (kill → first progress of the
   * dead process's teams ≤ 15 s), which includes re-running the interrupted step (up to 8 s in the crash test): the
   * takeover must come within 6 s. A live process survives an event-loop stall or a database outage of up to 4 s.
   */
  cluster: {
    heartbeatMs: 1_000,
    leaseMs: 5_000,
    selfFenceMs: 4_000,
  },
  /**
   * Agent runs. Every run has a wall-clock limit: the default (RUN_TIME_LIMIT_MINUTES overrides it, 1 to
   * the maximum) or the agent's own time limit. Direct conversation runs in flight per account are capped
   * (RUNS_IN_FLIGHT_PER_ACCOUNT overrides); team job runs go through the scheduler and are not counted.
   */
  run: {
    defaultTimeLimitMinutes: limitFromEnv('RUN_TIME_LIMIT_MINUTES', 15),
    timeLimitMinutes: { min: 1, max: 120 },
    inFlightPerAccount: limitFromEnv('RUNS_IN_FLIGHT_PER_ACCOUNT', 4),
    /** Retry-After (seconds) on the 429 for one run too many. */
    retryAfterSeconds: 5,
    /** Tokens (input + output) one run may spend unless its agent sets its own budget; RUN_TOKEN_BUDGET overrides. */
    defaultTokenBudget: limitFromEnv('RUN_TOKEN_BUDGET', 500_000),
    tokenBudget: { min: 1_000, max: 10_000_000 },
  },
  /**
   * MCP servers and their calls (issue 28, ADR 054), shared by the forms, the API and the client. An agent's own
   * selection of MCP tools is agent.mcp above.
   */
  mcp: {
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
  },
  /**
   * Deferred tool loading (seed 000; server/mcp/tool-group/deferred.ts): past this many tools in a run, or this many
   * estimated tokens of MCP tool schemas, the MCP tools' schemas are withheld and `tool_search` loads them by query.
   * MCP_DEFER_TOOLS_OVER and MCP_DEFER_SCHEMA_TOKENS override. A search promotes at most `promotePerSearch` tools.
   */
  deferredTools: {
    overTools: limitFromEnv('MCP_DEFER_TOOLS_OVER', 20),
    overSchemaTokens: limitFromEnv('MCP_DEFER_SCHEMA_TOKENS', 8_000),
    promotePerSearch: 5,
    queryChars: 200,
    /** A deferred tool's line in the catalog: its one-line description cut to this many characters. */
    lineChars: 120,
  },
  /**
   * Guardrails that end a run early, each reported as the run's stopReason (lib/types/stop-reason.ts): the token
   * budget warns at warnAt and stops at 100 %; the loop guard trips on the same set of tool calls repeated
   * `repeatedCalls` times in a row, or `sameTool` responses in a row calling only one tool, with varying arguments.
   */
  guards: { tokenWarnAt: 0.7, loop: { repeatedCalls: 3, sameTool: 20 } },
  /**
   * Delegation (the `task` tool): an agent's depth, total children per run and children at once, each within these
   * ranges; DELEGATION_MAX_CONCURRENT is the server's bound on children at once per run. acceptanceCriteria bounds
   * both `task` and `send_member`.
   */
  /**
   * Model providers (issue #26 item 7): calls in flight at once per provider, across every run and process, and an
   * optional cap on calls started per minute. A provider without its own concurrency cap gets the default.
   */
  providers: {
    concurrent: { min: 1, max: 1_000, default: limitFromEnv('PROVIDER_MAX_CONCURRENT', 4) },
    requestsPerMinute: { min: 1, max: 100_000, default: limitFromEnv('PROVIDER_REQUESTS_PER_MINUTE', 0) || null },
  },
  delegation: {
    depth: { min: 1, max: 5, default: 2 },
    childrenPerRun: { min: 1, max: 50, default: 6 },
    concurrent: { min: 1, max: 64, default: 3, server: limitFromEnv('DELEGATION_MAX_CONCURRENT', 8) },
    acceptanceCriteria: { maxItems: 20, maxChars: 500 },
    description: { maxChars: 200 },
    prompt: { maxChars: 8_000, maxBytes: 16_000 },
    persona: { maxChars: 8_000 },
    outputSchemaBytes: 16_000,
    /** A child's wall-clock limit in minutes (within the parent's own). */
    childTimeLimitMinutes: 10,
  },
  /**
   * Durable batches (ADR 059): what one POST /api/v1/batches or `batch_task` call may hold, what each item's run keeps,
   * and how an admitted item's lease expires when nothing started its run. Limits are persisted with each batch.
   */
  batch: {
    maxItems: 1_000,
    maxColumns: 32,
    column: { maxChars: 64 },
    /** One item's values together, in UTF-8 bytes (1,000 CJK characters, 750 emoji). */
    itemBytes: 3_000,
    template: { maxChars: 12_000, maxBytes: 12_000 },
    maxConcurrency: 8,
    attempts: { min: 1, max: 5, default: 3 },
    /** One item's stored result, in UTF-8 bytes (cut with a truncated flag). */
    resultBytes: 8_000,
    /** One item's stored error. */
    errorChars: 1_000,
    /** Batches an account may have unfinished at once (a flood of creations is refused past it). */
    livePerOwner: 5,
    /** The request body of a creation: maxItems items at itemBytes, with JSON's quoting. */
    bodyBytes: 4 * 1024 * 1024,
    /**
     * The browser's start form: the list a person pastes or uploads (UTF-8 bytes, refused before it is parsed), and
     * what the form may send through its server action (Next's cap on an action's body is 1 MiB; the JSON of the
     * items repeats every column name per row, so it is checked too, with room for the action's encoding).
     */
    listBytes: 512 * 1024,
    actionBytes: 1_000_000,
    /** An admitted item whose run was not recorded within this time has lost its lease (its worker died or hung). */
    leaseMs: 60_000,
    page: { default: 50, max: 200 },
  },
  /**
   * Token budgets: a team's budget warns in the feed at warnAt and admits no new work at 100 %; the operator's daily
   * cap per account (DAILY_TOKEN_CAP_PER_ACCOUNT, UTC day; 0 = none) is enforced the same way for conversations.
   */
  budget: {
    team: { min: 1_000, max: 1_000_000_000 },
    warnAt: 0.8,
    dailyPerAccount: limitFromEnv('DAILY_TOKEN_CAP_PER_ACCOUNT', 0),
    /** A team's money budget, in US dollars with at most `decimals` decimal places (ADR 048). */
    money: { min: '0.01', max: '1000000', decimals: 2 },
  },
  /**
   * Model prices (ADR 048): US dollars per million tokens, 0 to `max`, at most `decimals` decimal places (one
   * micro-dollar per million tokens), so a run's exact cost fits a 64-bit integer of nano-dollars.
   */
  prices: { max: '1000', decimals: 6 },
  /** Receipts (lib/types/receipts.ts): distinct citations checked per text (more are ignored, not an error). */
  receipts: { citationsPerText: 100 },
  result: { maxBytes: 6_000 },
  /** Run events (lib/types/run-events.ts): step text and each tool call's arguments are capped; pages of events. */
  runEvents: { textChars: 2_000, page: { min: 1, max: 200, default: 100 } },
  /**
   * Compaction: a conversation is compacted before a model call once the model's input passes the agent's
   * threshold (compactAtTokens) or this default (COMPACT_AT_TOKENS overrides); the newest keepTokens stay verbatim.
   */
  compaction: {
    defaultAtTokens: limitFromEnv('COMPACT_AT_TOKENS', 24_000),
    atTokens: { min: 1_000, max: 1_000_000 },
    keepTokens: 4_000,
  },
  /** The runs timeline (GET /teams/:id/runs): the longest window one request may cover, and runs per answer. */
  teamRuns: { maxWindowDays: 31, maxRuns: 2_000 },
  sharedRecord: { retained: 100, inContext: 8 },
  sharedContext: { maxBytes: 24_000 },
  publicState: {
    entries: 20,
    projectionBytes: 16_000,
    title: TITLE,
    content: { maxChars: 1_000, maxBytes: 2_000 },
  },
  history: { defaultLimit: 8, minLimit: 1, maxLimit: 20, responseBytes: 24_000, excerptBytes: 500, textBytes: 6_000 },
  mentionLabel: { maxUtf16: 120 },
  activity: { defaultLimit: 20, maxLimit: 200 },
  /** The inbox (ADR 056): a page of waiting items, and how many approvals one bulk answer may name. */
  inbox: { defaultLimit: 50, maxLimit: 100, maxBulk: 100 },
  /** Server-sent event streams (server/push): open at once per account, and the comment that keeps proxies open. */
  push: { maxStreamsPerAccount: 20, heartbeatMs: 15_000, retryAfterSeconds: 30 },
  message: MESSAGE,
  /** Largest JSON request body any /api route accepts. */
  requestBodyBytes: 64 * 1024,
  /** Deepest nesting of arrays/objects a JSON request body may have (deeper → 422, checked before parsing). */
  jsonMaxDepth: 64,
  /** The scripted model: longest `/sleep`, excerpt length, and the most tokens a `/tokens N` response may report. */
  scripted: { maxSleepMs: 60_000, excerptChars: 200, maxTokens: 100_000_000, maxPaceMs: 2_000 },
  /**
   * Live output (server/agents/live-output, ADR 031): the newest text of a running member's current response kept
   * per run (the tail: a card shows what is being written now; the final result replaces it), and the shortest gap
   * between two pushes of it per run (a fast provider writes dozens of chunks a second; a person reads far slower).
   */
  liveOutput: { maxChars: 2_000, maxBytes: 4_000, publishMs: 250, maxRuns: 256 },
  /**
   * Files (ADR 058): one upload or version at most `maxBytes` (FILE_MAX_BYTES overrides), all of an account's versions
   * within `quotaBytesPerAccount` (FILE_QUOTA_BYTES_PER_ACCOUNT overrides); both 413 past them. A name is cut to
   * `name` after normalizing. Previews and the `files` tools read bounded text; PDF/DOCX extraction runs in a
   * separate process with `extract` time and memory so a decompression bomb costs that process, not the server.
   */
  files: {
    maxBytes: limitFromEnv('FILE_MAX_BYTES', 25 * 1024 * 1024),
    quotaBytesPerAccount: limitFromEnv('FILE_QUOTA_BYTES_PER_ACCOUNT', 1024 * 1024 * 1024),
    name: { maxChars: 200, maxBytes: 255 },
    perScope: 1_000,
    attachments: 10,
    previewChars: 100_000,
    diffBytes: 2 * 1024 * 1024,
    read: { maxChars: 40_000, maxLines: 2_000 },
    search: { queryChars: 200, maxResults: 50, maxFiles: 200, lineChars: 200, maxScanBytes: 64 * 1024 * 1024 },
    write: { maxBytes: 1024 * 1024 },
    extract: { timeoutMs: 20_000, memoryMb: 256, maxChars: 2_000_000 },
  },
  /**
   * The `web` tool group (server/web, ADR 060). A fetch reads at most `maxBytes` of a body (a model may ask for less,
   * down to `minBytes`; past the cap it stops reading and says the page was cut), finishes within `timeoutMs` in
   * all — connecting, every redirect and the body — and follows at most `maxRedirects`, each checked again by the
   * egress rule. What the model reads is at most `outputChars`. `callsPerMinute` web calls (fetch and search
   * together) per account; past it a call is refused with the seconds to wait. Search: `queryChars`, at most
   * `searchResults` results, the provider's answer within `searchBytes` and `searchTimeoutMs`. An HTML page becomes
   * Markdown in a separate process within `convert` time and heap (seconds of parsing must not stall the server).
   */
  web: {
    maxBytes: 2 * 1024 * 1024,
    minBytes: 1_024,
    timeoutMs: 20_000,
    maxRedirects: 5,
    outputChars: 60_000,
    urlChars: 2_048,
    callsPerMinute: 30,
    queryChars: 400,
    searchResults: 10,
    searchBytes: 512 * 1024,
    searchTimeoutMs: 10_000,
    convert: { timeoutMs: 15_000, memoryMb: 256 },
  },
  /**
   * Skills (server/skills, ADR 061): an account's instruction packs. A name is a short identifier the prompt lists;
   * the description (one paragraph, also in the prompt) and the body (read on demand by read_skill) are bounded in
   * characters and UTF-8 bytes. A ZIP import reads at most `zipBytes` of body, `entries` entries, `inflatedBytes` in
   * all once inflated (counted while inflating, so a bomb stops there) and `fileBytes` per resource file.
   */
  skills: {
    name: { maxChars: 64, maxBytes: 128 },
    description: { maxChars: 1_024, maxBytes: 2_048 },
    body: { maxChars: 50_000, maxBytes: 100_000 },
    path: { maxChars: 200, maxBytes: 400 },
    fileBytes: 256 * 1024,
    zipBytes: 2 * 1024 * 1024,
    inflatedBytes: 4 * 1024 * 1024,
    entries: 64,
    perAccount: 100,
    perAgent: 16,
    /** What one read_skill result gives the model, in characters. */
    readChars: 40_000,
  },
} as const;
