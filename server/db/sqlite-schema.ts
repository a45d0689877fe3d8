import { sql } from 'drizzle-orm';
import { API_TOKEN_SCOPES } from '@/lib/types/api-token';
import { BATCH_ITEM_STATUSES, BATCH_STATUSES } from '@/lib/types/batch';
import { DELEGATION_STATUSES } from '@/lib/types/delegation';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const id = () => text('id').primaryKey();
const createdAt = () =>
  integer('created_at', { mode: 'timestamp_ms' })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);

export const users = sqliteTable('users', {
  id: id(),
  email: text('email').notNull().unique(),
  name: text('name').notNull().default(''),
  passwordHash: text('password_hash').notNull(),
  /** Bumped to revoke every session (JWTs carry the version they were issued under). */
  sessionVersion: integer('session_version').notNull().default(1),
  /** The instance's first account is its admin; every later one is a member. */
  role: text('role', { enum: ['admin', 'member'] }).notNull().default('member'),
  /** Set by an admin: the account's sessions and tokens stop working at once. */
  disabledAt: integer('disabled_at', { mode: 'timestamp_ms' }),
  createdAt: createdAt(),
});

/** Single-use, expiring invitation links an admin creates while sign-up is closed. */
export const invitations = sqliteTable(
  'invitations',
  {
    id: id(),
    /** SHA-256 of the invitation code; the code itself is shown once. */
    codeHash: text('code_hash').notNull().unique(),
    createdById: text('created_by_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    note: text('note').notNull().default(''),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    usedById: text('used_by_id').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [index('invitations_created_by_idx').on(t.createdById, t.createdAt)],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the token; the token itself is shown once and never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** First characters of the token so a person can tell tokens apart. */
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    /** Null = never expires. */
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
    /** What the token may do: 'read' (safe methods only) or 'full'. Tokens made before scopes existed are full. */
    scope: text('scope', { enum: API_TOKEN_SCOPES }).notNull().default('full'),
  },
  (t) => [index('api_tokens_user_idx').on(t.userId)],
);

/** Failed sign-in attempts, kept briefly for rate limiting (per account and per client address). */
export const signInFailures = sqliteTable(
  'sign_in_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    key: text('key').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('sign_in_failures_key_at_idx').on(t.key, t.at)],
);

/**
 * Addresses (as rate-limit keys: an IPv4 address or an IPv6 /64) that signed in to an account with its password,
 * keyed `email|address`, with the last time (epoch ms). A known address is not held by the account-wide sign-in
 * ceiling (ADR 041), so strangers filling that ceiling can't keep the owner out.
 */
export const signInKnownAddresses = sqliteTable('sign_in_known_addresses', {
  key: text('key').primaryKey(),
  at: integer('at').notNull(),
});

export const agents = sqliteTable(
  'agents',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Lower-cased name: names are unique per owner regardless of case. */
    nameKey: text('name_key').notNull(),
    description: text('description').notNull().default(''),
    instructions: text('instructions').notNull().default(''),
    model: text('model').notNull().default('scripted'),
    toolGroups: text('tool_groups', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    approvalTools: text('approval_tools', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    /** The MCP servers (and which of their tools) the agent uses: lib/schemas/agent.ts agentMcpToolsSchema. */
    mcpTools: text('mcp_tools', { mode: 'json' }).$type<AgentMcpTools>().notNull().default(sql`'[]'`),
    /** The owner's skills (ids) the agent may read with read_skill (ADR 061); checked against the owner on write. */
    skills: text('skills', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    maxTurns: integer('max_turns').notNull().default(25),
    /** Wall-clock limit of one run in minutes; null = the server's default (LIMITS.run). */
    timeLimitMinutes: integer('time_limit_minutes'),
    /** Compact the conversation before a model call once its input passes this many tokens; null = the default. */
    compactAtTokens: integer('compact_at_tokens'),
    /**
     * Which catalog agents (same owner) this agent may delegate to with `task`: 'all', 'none' or a list of agent ids.
     * Snapshotted when a run starts. The calling agent itself as a general-purpose helper is always allowed.
     */
    allowedSubagents: text('allowed_subagents', { mode: 'json' }).$type<AllowedSubagents>().notNull().default(sql`'"all"'`),
    /** Deepest delegation below a run of this agent (a child is its parent's depth + 1); LIMITS.delegation.depth. */
    maxDepth: integer('max_depth').notNull().default(2),
    /** Children one run may start in all (a durable ledger counts them); LIMITS.delegation.childrenPerRun. */
    maxChildren: integer('max_children').notNull().default(6),
    /** Children of one run running at once (also bounded by the server's limit); LIMITS.delegation.concurrent. */
    maxConcurrentChildren: integer('max_concurrent_children').notNull().default(3),
    /** Tokens one run of this agent may spend (input + output); null = LIMITS.run.defaultTokenBudget. */
    tokenBudget: integer('token_budget'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('agents_owner_name_key').on(t.ownerId, t.nameKey)],
);

/** AGENT.allowedSubagents: every catalog agent, none, or these agent ids. */
export type AllowedSubagents = 'all' | 'none' | string[];

/** AGENT.mcpTools: per server, all its tools or the tools named (their MCP names). */
export type AgentMcpTools = Array<{ serverId: string; tools: 'all' | string[] }>;

/** MCP_DISCOVERIES.tools: a tool as listed (server/mcp/tool-info.ts), its schema hash of what is kept. */
export type McpDiscoveredTool = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  schemaHash: string;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
};

/** A conversation is one LangGraph thread (thread_id = conversation id) bound to one agent. */
export const conversations = sqliteTable(
  'conversations',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null once the agent is deleted; the conversation stays readable. */
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    /** The agent's name when the conversation was created, for display after the agent is gone. */
    agentName: text('agent_name').notNull(),
    title: text('title').notNull().default(''),
    /** Set for a delegated child's own conversation (hidden from the conversation list): the run that delegated. */
    parentRunId: text('parent_run_id'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('conversations_owner_idx').on(t.ownerId, t.updatedAt)],
);

export const RUN_STATUSES = ['pending', 'running', 'success', 'error', 'interrupted', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/**
 * A person's own chat run stopped on an approval or a question (not a team job's run, not a delegated child's): the
 * inbox's chat source (server/inbox, ADR 056). Written exactly as the query writes it: SQLite uses a partial index
 * only then.
 */
export const INTERRUPTED_CHAT_RUN_PREDICATE = `status = 'interrupted' and team_id is null and parent_run_id is null`;

/** One execution on a conversation. Unique by (conversation, idempotency key): a retry finds the same run. */
export const runs = sqliteTable(
  'runs',
  {
    id: id(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /**
     * 'start' sends a human message; 'resume' answers a graph interrupt; 'note' appends a framework note without
     * running the agent (server/agents/thread-notes.ts), holding the conversation's lock until it is written.
     */
    kind: text('kind', { enum: ['start', 'resume', 'note'] }).notNull(),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('pending'),
    model: text('model').notNull(),
    /** The exact input, kept so a recovered run is the same request. */
    input: text('input', { mode: 'json' }).$type<unknown>().notNull(),
    /**
     * The interrupt payload when status is 'interrupted', kept when a cancel ends the wait ('cancelled'): a team
     * request's, or a batch's for its items' runs (which the conversation's parent_run_id names: 'batch:<id>').
     */
    interrupt: text('interrupt', { mode: 'json' }).$type<unknown>(),
    error: text('error'),
    /** Why a run ended early (e.g. 'time_capped'), beside its status; null when it ran its course. */
    stopReason: text('stop_reason'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    /** Model calls recorded for the run, and how many of them reported no token usage (absent, never counted as 0). */
    modelCalls: integer('model_calls').notNull().default(0),
    unreportedCalls: integer('unreported_calls').notNull().default(0),
    /**
     * What the run cost in nano-dollars (1e-9 USD), priced when it finished at its model's price then (ADR 048): null
     * while it runs, and when the cost is unknown (no price for the model, or a call reported no usage).
     */
    costNanos: integer('cost_nanos'),
    /** SHA-256 of the canonical assembly descriptor recorded when the run started (lib/types/assembly.ts). */
    fingerprint: text('fingerprint'),
    assembly: text('assembly', { mode: 'json' }).$type<unknown>(),
    /** A delegated child run: the run whose `task` call started it, and that call's id. */
    parentRunId: text('parent_run_id'),
    parentToolCallId: text('parent_tool_call_id'),
    /** Delegation depth: 0 for a run a person or a team job started, the parent's depth + 1 for a child. */
    depth: integer('depth').notNull().default(0),
    /** The team whose job (or whose job's delegated descendant) this run is; its tokens count against the team's budget. */
    teamId: text('team_id'),
    /**
     * While the run waits on its delegated children it lends its scheduler slot: 'waiting' (children unfinished),
     * 'ready' (all finished, waiting to be admitted again), null (not waiting, or admitted again).
     */
    delegationWait: text('delegation_wait', { enum: ['waiting', 'ready'] }),
    /**
     * The app process executing the run (app_processes.id; ADR 033 §5): a run whose process stopped heartbeating is
     * taken over by another one. Null only for rows written before several processes existed.
     */
    processId: text('process_id'),
    /** A cancel asked in another process than the one executing the run: that process stops it. */
    cancelRequestedAt: integer('cancel_requested_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('runs_conversation_key').on(t.conversationId, t.idempotencyKey),
    index('runs_conversation_created_idx').on(t.conversationId, t.createdAt),
    index('runs_status_idx').on(t.status),
    // The conversation lock and the prune check ask "any active run here?": without this they visit every run.
    index('runs_conversation_status_idx').on(t.conversationId, t.status),
    // The conversation lock (server/agents/conversation-lock.ts) as a constraint: one pending or running run per
    // conversation, whichever process writes (ADR 033 §3). The lock's own check stays, for the friendly 409.
    uniqueIndex('runs_one_active_per_conversation').on(t.conversationId).where(sql`status in ('pending', 'running')`),
    // Budgets: an account's tokens today, a team's tokens.
    index('runs_owner_created_idx').on(t.ownerId, t.createdAt),
    index('runs_team_idx').on(t.teamId),
    index('runs_parent_idx').on(t.parentRunId),
    // The inbox (ADR 056): an owner's interrupted chat runs, oldest first, without visiting their other runs.
    index('runs_interrupted_chat_owner_idx').on(t.ownerId, t.finishedAt).where(sql.raw(INTERRUPTED_CHAT_RUN_PREDICATE)),
  ],
);

/**
 * The durable delegation ledger: one row per child a run's `task` call asked for, refused ones included (status
 * 'failed', never run). Counting a run's rows bounds its total children across batches and restarts; a child's row
 * is what the scheduler admits (it holds a slot while 'running'). Unique by (parent run, tool call): a repeated
 * tools step finds the same child.
 */
export const delegations = sqliteTable(
  'delegations',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    ownerId: text('owner_id').notNull(),
    parentRunId: text('parent_run_id').notNull(),
    parentConversationId: text('parent_conversation_id').notNull(),
    parentToolCallId: text('parent_tool_call_id').notNull(),
    /** The team of the parent run, if any (budgets and the team's activity). */
    teamId: text('team_id'),
    /** The catalog agent the child runs as (the parent's own agent for a general-purpose helper). */
    agentId: text('agent_id'),
    provider: text('provider').notNull(),
    /** The validated task request (description, prompt, persona, tools, output_schema, acceptance_criteria). */
    spec: text('spec', { mode: 'json' }).$type<unknown>().notNull(),
    depth: integer('depth').notNull(),
    status: text('status', { enum: DELEGATION_STATUSES }).notNull().default('queued'),
    childConversationId: text('child_conversation_id'),
    childRunId: text('child_run_id'),
    /** What the parent receives: status, stop reason, model, token usage, receipts, output (lib/types/delegation.ts). */
    result: text('result', { mode: 'json' }).$type<unknown>(),
    error: text('error'),
    createdAt: createdAt(),
    admittedAt: integer('admitted_at', { mode: 'timestamp_ms' }),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('delegations_parent_call').on(t.parentRunId, t.parentToolCallId),
    index('delegations_status_idx').on(t.status),
    index('delegations_child_run_idx').on(t.childRunId),
  ],
);
export type Delegation = typeof delegations.$inferSelect;

export type User = typeof users.$inferSelect;
export type Agent = typeof agents.$inferSelect;
export type Conversation = typeof conversations.$inferSelect;
export type Run = typeof runs.$inferSelect;
export type ApiToken = typeof apiTokens.$inferSelect;
export type Invitation = typeof invitations.$inferSelect;

// ───────────────────────────── Teams ─────────────────────────────

// 'disconnected' is never written (nothing can take a ready team's members away); kept so the column's enum is unchanged.
export const TEAM_STATUSES = ['creating', 'ready', 'disconnected'] as const;

export const teams = sqliteTable(
  'teams',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The client's request id: creating twice with the same id returns the same team. */
    requestId: text('request_id').notNull(),
    name: text('name').notNull(),
    goal: text('goal').notNull(),
    status: text('status', { enum: TEAM_STATUSES }).notNull().default('creating'),
    disconnectReason: text('disconnect_reason'),
    /** Bumped in the same transaction as every change the activity view shows. */
    revision: integer('revision').notNull().default(1),
    /** Bumped by every public-state write. */
    stateRevision: integer('state_revision').notNull().default(0),
    /** 1 while the team has unfinished jobs: the planner reads only these teams, through one index. */
    hasPending: integer('has_pending').notNull().default(0),
    /** The team this one was cloned from (same roster and goal, fresh request capacity). */
    clonedFromTeamId: text('cloned_from_team_id'),
    /** Tokens the team may spend in all (its runs and their delegated children); null = no team budget. */
    tokenBudget: integer('token_budget'),
    /** Or money it may spend in all, in nano-dollars (ADR 048); at most one of the two is set. */
    moneyBudgetNanos: integer('money_budget_nanos'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('teams_owner_request_key').on(t.ownerId, t.requestId),
    index('teams_owner_created_idx').on(t.ownerId, t.createdAt),
    index('teams_pending_idx').on(t.hasPending),
  ],
);

export const teamMembers = sqliteTable(
  'team_members',
  {
    id: id(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** The recorded agent binding; null if the agent was deleted later. */
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    agentName: text('agent_name').notNull(),
    name: text('name').notNull(),
    position: integer('position').notNull(),
    /** Null until the member conversation is ensured (creation or reconnect). */
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('team_members_team_idx').on(t.teamId, t.position),
    index('team_members_conversation_idx').on(t.conversationId),
  ],
);

export const JOB_STATUSES = [
  'queued',
  'running',
  'waiting_input',
  'resuming',
  'cancelling',
  'completed',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Not yet completed, failed or cancelled. */
export const UNFINISHED_JOB_STATUSES = ['queued', 'running', 'waiting_input', 'resuming', 'cancelling'] as const satisfies readonly JobStatus[];
/** Completed, failed or cancelled: a job never leaves these. */
export const FINISHED_JOB_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly JobStatus[];
/**
 * That set as SQL, spelled once for the partial indexes (both schemas) and the queries that read through them:
 * SQLite uses a partial index only when the query's predicate matches the index's.
 */
export const UNFINISHED_JOB_PREDICATE = `status in (${UNFINISHED_JOB_STATUSES.map((s) => `'${s}'`).join(',')})`;
/** A job waiting for the person's answer: the inbox's team source (ADR 056), spelled once for its index and query. */
export const WAITING_JOB_PREDICATE = `status = 'waiting_input'`;

/** A request to a member, or a receipt returning a finished request's result to its requester. */
export const jobs = sqliteTable(
  'jobs',
  {
    /** Insertion order: FIFO per owner and per conversation. */
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    kind: text('kind', { enum: ['request', 'receipt'] }).notNull(),
    /** The member whose conversation runs the job (for a receipt: the requesting member, if any). */
    memberId: text('member_id'),
    /** The conversation the job runs in. */
    conversationId: text('conversation_id').notNull(),
    /** Who asked: a member (handoff), a conversation (mention from a chat), or neither (the person). */
    sourceMemberId: text('source_member_id'),
    sourceConversationId: text('source_conversation_id'),
    parentId: text('parent_id'),
    rootId: text('root_id').notNull(),
    depth: integer('depth').notNull().default(1),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('queued'),
    text: text('text').notNull(),
    /** Idempotency key of the request (draft key + member, or tool request id); unique per team. */
    requestKey: text('request_key').notNull(),
    /** The exact run input, frozen at admission; never changes afterwards. */
    frozenInput: text('frozen_input', { mode: 'json' }).$type<unknown>(),
    /** Run idempotency key for the current attempt (job id + step), so a retry is the same run. */
    runKey: text('run_key'),
    runId: text('run_id'),
    /** What the job waits for while waiting_input, and the pending answer while resuming. */
    waiting: text('waiting', { mode: 'json' }).$type<unknown>(),
    answer: text('answer', { mode: 'json' }).$type<unknown>(),
    answerKey: text('answer_key'),
    result: text('result'),
    resultTruncated: integer('result_truncated', { mode: 'boolean' }),
    error: text('error'),
    /** A retry (or a send to another member) of this earlier request: the new request links to the original. */
    retryOfJobId: text('retry_of_job_id'),
    /** For requests: whether its receipt was written (at most one). */
    receiptJobId: text('receipt_job_id'),
    createdAt: createdAt(),
    admittedAt: integer('admitted_at', { mode: 'timestamp_ms' }),
    completedAt: integer('completed_at', { mode: 'timestamp_ms' }),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    /** The team revision of the job's latest change: `activity?since=REV` reads only jobs changed after REV. */
    changedRevision: integer('changed_revision').notNull().default(0),
  },
  (t) => [
    uniqueIndex('jobs_team_request_key').on(t.teamId, t.kind, t.requestKey),
    index('jobs_team_seq_idx').on(t.teamId, t.seq),
    index('jobs_conversation_idx').on(t.conversationId, t.seq),
    index('jobs_root_idx').on(t.rootId),
    index('jobs_run_idx').on(t.runId),
    index('jobs_team_changed_idx').on(t.teamId, t.changedRevision),
    // The requests embedding a changed receipt (touchTeam): a handful of rows, found without walking the team's jobs.
    index('jobs_receipt_idx').on(t.receiptJobId).where(sql`${t.receiptJobId} is not null`),
    // Only unfinished jobs (a few per team), so a planning pass and touchTeam never walk a team's finished history.
    // The predicate is written exactly as the queries write it: SQLite uses a partial index only then.
    index('jobs_unfinished_team_idx').on(t.teamId, t.seq).where(sql.raw(UNFINISHED_JOB_PREDICATE)),
    index('jobs_unfinished_conversation_idx')
      .on(t.conversationId, t.seq)
      .where(sql.raw(UNFINISHED_JOB_PREDICATE)),
    // The inbox (ADR 056): an owner's waiting jobs across teams, oldest first.
    index('jobs_waiting_owner_idx').on(t.ownerId, t.updatedAt).where(sql.raw(WAITING_JOB_PREDICATE)),
  ],
);

/** The team's shared record: requests, results and notes, retained up to a bound. */
export const sharedMessages = sqliteTable(
  'shared_messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    jobId: text('job_id'),
    kind: text('kind', { enum: ['request', 'result', 'error', 'cancelled', 'note'] }).notNull(),
    /** Null = the person. */
    senderMemberId: text('sender_member_id'),
    senderLabel: text('sender_label').notNull(),
    recipientMemberId: text('recipient_member_id'),
    text: text('text').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('shared_messages_team_seq_idx').on(t.teamId, t.seq)],
);

export const STATE_KINDS = ['objective', 'plan', 'finding', 'question', 'requirement'] as const;

/** Team public state: durable entries members publish and update. */
export const stateEntries = sqliteTable(
  'state_entries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** conversation id + ':' + the tool's request id: retries return the same entry. */
    publicationKey: text('publication_key').notNull(),
    kind: text('kind', { enum: STATE_KINDS }).notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
    revision: integer('revision').notNull().default(1),
    /** The original publication, to tell a retry from a conflicting reuse of the request id. */
    original: text('original', { mode: 'json' }).$type<{ kind: string; title: string; content: string }>().notNull(),
    /** The latest successful update's arguments, so its identical retry succeeds without a new revision. */
    lastUpdate: text('last_update', { mode: 'json' }).$type<unknown>(),
    /** The member who published / last updated the entry; null = the person (shown as "You"). */
    createdByMemberId: text('created_by_member_id'),
    updatedByMemberId: text('updated_by_member_id'),
    sourceConversationId: text('source_conversation_id'),
    sourceJobId: text('source_job_id'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('state_entries_publication_key').on(t.teamId, t.publicationKey)],
);

/**
 * The app processes sharing this database (ADR 033 §5). A process heartbeats; one whose heartbeat is older than the
 * lease time is dead, and its teams and runs are taken over. On SQLite only the one process ever writes here.
 */
export const appProcesses = sqliteTable('app_processes', {
  id: text('id').primaryKey(),
  pid: integer('pid').notNull(),
  host: text('host').notNull(),
  startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
  heartbeatAt: integer('heartbeat_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * Which process runs a team's scheduler steps (ADR 033 §5). `epoch` grows at every change of holder: a step writes
 * only while (team, process, epoch) still holds, so a process that stalled past its lease writes nothing after the
 * takeover.
 */
export const teamLeases = sqliteTable('team_leases', {
  teamId: text('team_id')
    .primaryKey()
    .references(() => teams.id, { onDelete: 'cascade' }),
  processId: text('process_id').notNull(),
  epoch: integer('epoch').notNull(),
  expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
});

/** The owner-fair rotation between planning passes (ADR 004), shared by every process: one row, named 'owner-fair'. */
export const schedulerRounds = sqliteTable('scheduler_rounds', {
  name: text('name').primaryKey(),
  round: text('round', { mode: 'json' }).$type<unknown>().notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * The model providers an admin manages in the app (ADR 043). `slug` names the provider in an agent's model string
 * (`<slug>:<model>`); the API key is stored only encrypted (server/providers/secret-box.ts), with its last four
 * characters kept apart so the key can be recognised without being decrypted. `models` caches the provider's list.
 */
export const providers = sqliteTable('providers', {
  id: id(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['openai', 'anthropic', 'ollama'] }).notNull(),
  baseUrl: text('base_url').notNull(),
  apiKeyCipher: text('api_key_cipher'),
  apiKeyLast4: text('api_key_last4'),
  models: text('models', { mode: 'json' }).$type<string[]>(),
  modelsFetchedAt: integer('models_fetched_at', { mode: 'timestamp_ms' }),
  /** Model calls in flight at once, across every run and process (null: LIMITS.providers.defaultConcurrent). */
  maxConcurrent: integer('max_concurrent'),
  /** Model calls started per minute (null: no such cap). */
  requestsPerMinute: integer('requests_per_minute'),
  createdAt: createdAt(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * A provider's model calls, waiting or in flight, shared by every process (server/providers/capacity): the
 * concurrency and per-minute caps are counted here. A row is leased (`expires_at`, renewed while it lives), so a
 * dead process's calls stop counting; a finished call is kept a minute for the per-minute count.
 */
export const providerCalls = sqliteTable(
  'provider_calls',
  {
    id: text('id').primaryKey(),
    /** The provider's identity (model-call/provider.ts providerKey: kind and endpoint). */
    providerKey: text('provider_key').notNull(),
    runId: text('run_id'),
    state: text('state', { enum: ['waiting', 'running', 'done'] }).notNull(),
    /** Epoch milliseconds (numbers on both engines, compared with Date.now()): the queue's order. */
    queuedAt: integer('queued_at').notNull(),
    startedAt: integer('started_at'),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('provider_calls_key_state_idx').on(t.providerKey, t.state)],
);

/**
 * MCP servers (issue 28, ADR 054): deployment-wide ones (owner_id null, an admin defines them; stdio or http) and an
 * account's own (http only). `scope` is the owner's id or '' for deployment-wide, so a name is unique per scope.
 * Every secret — stdio env values, http header values, and the URL itself (it may carry a token) — is sealed in
 * `secrets_cipher` (server/providers/secret-box.ts, the row id as additional data); `url_shown` is the URL without
 * credentials, query or fragment, and `env_names`/`header_names` the names only, for the pages.
 */
export const mcpServers = sqliteTable(
  'mcp_servers',
  {
    id: id(),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    name: text('name').notNull(),
    transport: text('transport', { enum: ['stdio', 'http'] }).notNull(),
    command: text('command'),
    args: text('args', { mode: 'json' }).$type<string[]>(),
    urlShown: text('url_shown'),
    envNames: text('env_names', { mode: 'json' }).$type<string[]>(),
    headerNames: text('header_names', { mode: 'json' }).$type<string[]>(),
    secretsCipher: text('secrets_cipher'),
    timeoutMs: integer('timeout_ms').notNull(),
    maxConcurrent: integer('max_concurrent').notNull(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('mcp_servers_scope_name_idx').on(t.scope, t.name), index('mcp_servers_owner_idx').on(t.ownerId)],
);

/**
 * Each MCP server's last discovery, whichever process made it (ADR 057): status, the error, when checked, and the
 * tools as last listed (kept through an error, so a run still offers them). listed_at null: never listed. Written
 * only for the definition it was read from (a discovery of an edited or deleted server is dropped).
 */
export const mcpDiscoveries = sqliteTable('mcp_discoveries', {
  serverId: text('server_id')
    .primaryKey()
    .references(() => mcpServers.id, { onDelete: 'cascade' }),
  status: text('status', { enum: ['connected', 'error'] }).notNull(),
  error: text('error'),
  checkedAt: integer('checked_at', { mode: 'timestamp_ms' }).notNull(),
  tools: text('tools', { mode: 'json' }).$type<McpDiscoveredTool[]>().notNull(),
  toolsTruncated: integer('tools_truncated', { mode: 'boolean' }).notNull(),
  listedAt: integer('listed_at', { mode: 'timestamp_ms' }),
});

export type Team = typeof teams.$inferSelect;
export type TeamMember = typeof teamMembers.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type SharedMessage = typeof sharedMessages.$inferSelect;
export type StateEntry = typeof stateEntries.$inferSelect;

/**
 * Prices per million tokens of a model, keyed by its model string (`scripted`, `openai:gpt-4.1-mini`, `slug:model`:
 * the provider and the model), in micro-dollars (ADR 048). A null price is unknown, and so is any cost it enters.
 */
export const modelPrices = sqliteTable('model_prices', {
  model: text('model').primaryKey(),
  inputMicrosPerMillion: integer('input_micros_per_million'),
  outputMicrosPerMillion: integer('output_micros_per_million'),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * Files (ADR 058): a team workspace's or a chat's files, each a row here with its name and newest revision, its
 * versions in fileVersions. Exactly one of teamId / conversationId is set; `scope` ('team:<id>' or
 * 'conversation:<id>') carries the unique name rule of both scopes in one index.
 */
export const files = sqliteTable(
  'files',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    name: text('name').notNull(),
    revision: integer('revision').notNull(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('files_scope_name_idx').on(t.scope, t.name), index('files_owner_idx').on(t.ownerId), index('files_scope_updated_idx').on(t.scope, t.updatedAt)],
);

/**
 * One version of a file: its content by SHA-256 (stored once in the file store, whatever the number of versions
 * and files naming it), who wrote it (the person, or a member: its id and name then) and the run that did.
 */
export const fileVersions = sqliteTable(
  'file_versions',
  {
    id: id(),
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    revision: integer('revision').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    mediaType: text('media_type').notNull(),
    authorKind: text('author_kind', { enum: ['person', 'member'] }).notNull(),
    authorMemberId: text('author_member_id'),
    authorName: text('author_name'),
    runId: text('run_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('file_versions_file_revision_idx').on(t.fileId, t.revision), index('file_versions_sha_idx').on(t.sha256), index('file_versions_owner_idx').on(t.ownerId)],
);

/**
 * Content the store holds, by SHA-256: written after the bytes are durable, deleted (with the bytes) by the sweep
 * once no version names it. `loOid` is the Postgres store's large object; null on the local disk store.
 */
export const fileBlobs = sqliteTable('file_blobs', {
  sha256: text('sha256').primaryKey(),
  size: integer('size').notNull(),
  loOid: integer('lo_oid'),
  createdAt: createdAt(),
});

/** Files attached to a chat message (its run) or a team request (its job): what the person sent with it, in order. */
export const fileAttachments = sqliteTable(
  'file_attachments',
  {
    targetId: text('target_id').notNull(),
    // Null once the file is deleted: the row stays, so the message or request still lists it (as deleted).
    fileId: text('file_id').references(() => files.id, { onDelete: 'set null' }),
    position: integer('position').notNull(),
    // Who sent it and where (the file's scope): owner-scoped reads, and deleting the chat or team deletes the rows.
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    // The file as it was sent (name, type, size of the version then newest): what a deleted one still shows.
    name: text('name').notNull(),
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
  },
  (t) => [uniqueIndex('file_attachments_target_file_idx').on(t.targetId, t.fileId), index('file_attachments_file_idx').on(t.fileId)],
);

export type FileRow = typeof files.$inferSelect;
export type FileVersionRow = typeof fileVersions.$inferSelect;

// ───────────────────────────── Batches (ADR 059) ─────────────────────────────

/**
 * A durable batch: one template run over a list of items, each as a child run of the target agent, admitted by the
 * scheduler through the same slots as every job (owner-fair). Its limits (total, concurrency, attempts) are stored
 * with it and never touch a run's delegation ledger. Unique by (owner, idempotency key) when a key is given.
 */
export const batches = sqliteTable(
  'batches',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: BATCH_STATUSES }).notNull().default('running'),
    targetKind: text('target_kind', { enum: ['agent', 'member'] }).notNull(),
    /** The catalog agent every item runs as (a member's agent for a member target); null once that agent is deleted. */
    agentId: text('agent_id'),
    teamId: text('team_id'),
    memberId: text('member_id'),
    targetName: text('target_name').notNull(),
    template: text('template').notNull(),
    columns: text('columns', { mode: 'json' }).$type<string[]>().notNull(),
    total: integer('total').notNull(),
    concurrency: integer('concurrency').notNull(),
    maxAttempts: integer('max_attempts').notNull(),
    origin: text('origin', { enum: ['person', 'tool'] }).notNull(),
    /** A `batch_task` call's run and call id (origin 'tool'); its conversation gets the end message when not waiting. */
    parentRunId: text('parent_run_id'),
    parentConversationId: text('parent_conversation_id'),
    parentToolCallId: text('parent_tool_call_id'),
    /** 'wait': the calling run waits for the end; 'message': one message to its conversation at the end; 'none'. */
    notify: text('notify', { enum: ['none', 'wait', 'message'] }).notNull().default('none'),
    notifiedAt: integer('notified_at', { mode: 'timestamp_ms' }),
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('batches_owner_seq_idx').on(t.ownerId, t.seq),
    index('batches_status_idx').on(t.status),
    uniqueIndex('batches_owner_key').on(t.ownerId, t.idempotencyKey),
    uniqueIndex('batches_parent_call').on(t.parentRunId, t.parentToolCallId),
  ],
);

/**
 * One item of a batch. `lease` is the fencing token: bumped when the item is admitted and when it is cancelled or
 * expired, so a worker finishing under an older lease writes nothing. `attempts` counts executions that spent the
 * budget (a run that failed, a lease that expired), never a refusal before the model ran.
 */
/** A batch item stopped on a question or an approval: the inbox's batch source (ADR 056, 059), spelled once for its index and query. */
export const WAITING_BATCH_ITEM_PREDICATE = `status = 'waiting'`;

export const batchItems = sqliteTable(
  'batch_items',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    batchId: text('batch_id')
      .notNull()
      .references(() => batches.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    idx: integer('idx').notNull(),
    status: text('status', { enum: BATCH_ITEM_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lease: integer('lease').notNull().default(0),
    leaseExpiresAt: integer('lease_expires_at', { mode: 'timestamp_ms' }),
    // The process that admitted the item (its launch runs there): a dead one's unlaunched item is released at once.
    leaseProcessId: text('lease_process_id'),
    input: text('input', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    result: text('result'),
    resultTruncated: integer('result_truncated', { mode: 'boolean' }).notNull().default(false),
    error: text('error'),
    conversationId: text('conversation_id'),
    runId: text('run_id'),
    // When its run stopped for the person (status 'waiting'): the inbox's order.
    waitingSince: integer('waiting_since', { mode: 'timestamp_ms' }),
    // The person's answer, held while the answered item waits for a slot: its next launch resumes the run with it.
    answer: text('answer', { mode: 'json' }).$type<unknown>(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('batch_items_batch_idx').on(t.batchId, t.idx),
    index('batch_items_batch_status_idx').on(t.batchId, t.status, t.idx),
    index('batch_items_status_idx').on(t.status),
    index('batch_items_run_idx').on(t.runId),
    index('batch_items_waiting_owner_idx').on(t.ownerId, t.waitingSince).where(sql.raw(WAITING_BATCH_ITEM_PREDICATE)),
  ],
);
export type Batch = typeof batches.$inferSelect;
export type BatchItem = typeof batchItems.$inferSelect;

// ───────────────────────────── Skills (ADR 061) ─────────────────────────────

/**
 * A skill: an account's instruction pack (a SKILL.md's name, description and body, and resource files). `hash` is
 * the pack's content hash (name, description and every file's path and SHA-256), which an agent's assembly records.
 */
export const skills = sqliteTable(
  'skills',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Lower-cased name: unique per owner regardless of case. */
    nameKey: text('name_key').notNull(),
    description: text('description').notNull(),
    hash: text('hash').notNull(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('skills_owner_name_key').on(t.ownerId, t.nameKey)],
);

/** A skill's files (SKILL.md holds the body): content by SHA-256 in the file store, which keeps it while a row names it. */
export const skillFiles = sqliteTable(
  'skill_files',
  {
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
  },
  (t) => [uniqueIndex('skill_files_skill_path_idx').on(t.skillId, t.path), index('skill_files_sha_idx').on(t.sha256)],
);
export type SkillRow = typeof skills.$inferSelect;

/**
 * An account's web calls (web_fetch and web_search, ADR 060) in the rate's window: one row per call, so the
 * per-account rate holds across every process on the database. A take drops the account's rows past the window,
 * so an account keeps at most its rate's rows.
 */
export const webCalls = sqliteTable(
  'web_calls',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Epoch milliseconds (a number on both engines, compared with Date.now()). */
    at: integer('at').notNull(),
  },
  (t) => [index('web_calls_owner_at_idx').on(t.ownerId, t.at)],
);
