import { sql } from 'drizzle-orm';
import { API_TOKEN_SCOPES } from '@/lib/types/api-token';
import { BATCH_ITEM_STATUSES, BATCH_STATUSES } from '@/lib/types/batch';
import { DELEGATION_STATUSES } from '@/lib/types/delegation';
import { bigint, boolean, index, integer, json, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  JOB_STATUSES,
  UNFINISHED_JOB_PREDICATE,
  INTERRUPTED_CHAT_RUN_PREDICATE,
  WAITING_JOB_PREDICATE,
  WAITING_BATCH_ITEM_PREDICATE,
  RUN_STATUSES,
  STATE_KINDS,
  TEAM_STATUSES,
  type AgentMcpTools,
  type AllowedSubagents,
  type McpDiscoveredTool,
} from './sqlite-schema';

/**
 * The Postgres twin of ./sqlite-schema.ts (ADR 033): the same tables, columns, keys and indexes, so one set of domain code
 * can run on either engine. Kinds are chosen so every row type equals the SQLite one (test/db/schema-parity.test.ts
 * compares the two files and their TypeScript row types; npm run test:pg compares drizzle/pg with the live catalog):
 * - SQLite `integer` (64-bit) → `integer` for values bounded by lib/limits (counts, positions, revisions) and
 *   `bigint` (read as a JS number) for epoch milliseconds, token counters and insertion sequences;
 * - `integer {mode: timestamp_ms}` → `timestamptz(3)`: a Date either way, millisecond precision either way;
 * - `integer {mode: boolean}` → `boolean`;
 * - `text {mode: json}` → `json`, not `jsonb`: json keeps the text as written (key order, duplicate keys, `\u0000`),
 *   exactly what SQLite returns today; the few queries that look inside (json_extract today) become `->`/`->>`,
 *   and none needs an index inside a document. Their defaults are SQL literals (drizzle-kit writes a plain string
 *   default unquoted, which is not JSON);
 * - enum-typed text stays `text` (no CHECK on either side), so adding a status is not a type migration.
 * Auto-increment keys become identity columns; like SQLite's AUTOINCREMENT they never reuse a value.
 */

const id = () => text('id').primaryKey();
const ms = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const createdAt = () => ms('created_at').notNull().defaultNow();
/** A 64-bit whole number read as a JS number (exact up to 2^53: epoch ms, sequences, token totals). */
const big = (name: string) => bigint(name, { mode: 'number' });
const seq = () => big('seq').primaryKey().generatedByDefaultAsIdentity();

export const users = pgTable('users', {
  id: id(),
  email: text('email').notNull().unique(),
  name: text('name').notNull().default(''),
  passwordHash: text('password_hash').notNull(),
  sessionVersion: integer('session_version').notNull().default(1),
  role: text('role', { enum: ['admin', 'member'] }).notNull().default('member'),
  disabledAt: ms('disabled_at'),
  createdAt: createdAt(),
});

export const invitations = pgTable(
  'invitations',
  {
    id: id(),
    codeHash: text('code_hash').notNull().unique(),
    createdById: text('created_by_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    note: text('note').notNull().default(''),
    expiresAt: ms('expires_at').notNull(),
    usedAt: ms('used_at'),
    usedById: text('used_by_id').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: ms('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [index('invitations_created_by_idx').on(t.createdById, t.createdAt)],
);

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    lastUsedAt: ms('last_used_at'),
    expiresAt: ms('expires_at'),
    revokedAt: ms('revoked_at'),
    scope: text('scope', { enum: API_TOKEN_SCOPES }).notNull().default('full'),
  },
  (t) => [index('api_tokens_user_idx').on(t.userId)],
);

export const signInFailures = pgTable(
  'sign_in_failures',
  {
    id: big('id').primaryKey().generatedByDefaultAsIdentity(),
    key: text('key').notNull(),
    /** Epoch milliseconds (a number on both engines, compared with Date.now()). */
    at: big('at').notNull(),
  },
  (t) => [index('sign_in_failures_key_at_idx').on(t.key, t.at)],
);

export const signInKnownAddresses = pgTable('sign_in_known_addresses', {
  key: text('key').primaryKey(),
  at: big('at').notNull(),
});

export const agents = pgTable(
  'agents',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    description: text('description').notNull().default(''),
    instructions: text('instructions').notNull().default(''),
    model: text('model').notNull().default('scripted'),
    toolGroups: json('tool_groups').$type<string[]>().notNull().default(sql`'[]'::json`),
    approvalTools: json('approval_tools').$type<string[]>().notNull().default(sql`'[]'::json`),
    mcpTools: json('mcp_tools').$type<AgentMcpTools>().notNull().default(sql`'[]'::json`),
    skills: json('skills').$type<string[]>().notNull().default(sql`'[]'::json`),
    maxTurns: integer('max_turns').notNull().default(25),
    timeLimitMinutes: integer('time_limit_minutes'),
    compactAtTokens: big('compact_at_tokens'),
    allowedSubagents: json('allowed_subagents').$type<AllowedSubagents>().notNull().default(sql`'"all"'::json`),
    maxDepth: integer('max_depth').notNull().default(2),
    maxChildren: integer('max_children').notNull().default(6),
    maxConcurrentChildren: integer('max_concurrent_children').notNull().default(3),
    tokenBudget: big('token_budget'),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('agents_owner_name_key').on(t.ownerId, t.nameKey)],
);

export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    agentName: text('agent_name').notNull(),
    title: text('title').notNull().default(''),
    parentRunId: text('parent_run_id'),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [index('conversations_owner_idx').on(t.ownerId, t.updatedAt)],
);

export const runs = pgTable(
  'runs',
  {
    id: id(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    kind: text('kind', { enum: ['start', 'resume', 'note'] }).notNull(),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('pending'),
    model: text('model').notNull(),
    input: json('input').$type<unknown>().notNull(),
    /**
     * The interrupt payload when status is 'interrupted', kept when a cancel ends the wait ('cancelled'): a team
     * request's, or a batch's for its items' runs (which the conversation's parent_run_id names: 'batch:<id>').
     */
    interrupt: json('interrupt').$type<unknown>(),
    error: text('error'),
    stopReason: text('stop_reason'),
    inputTokens: big('input_tokens').notNull().default(0),
    outputTokens: big('output_tokens').notNull().default(0),
    modelCalls: integer('model_calls').notNull().default(0),
    unreportedCalls: integer('unreported_calls').notNull().default(0),
    costNanos: big('cost_nanos'),
    fingerprint: text('fingerprint'),
    assembly: json('assembly').$type<unknown>(),
    parentRunId: text('parent_run_id'),
    parentToolCallId: text('parent_tool_call_id'),
    depth: integer('depth').notNull().default(0),
    teamId: text('team_id'),
    delegationWait: text('delegation_wait', { enum: ['waiting', 'ready'] }),
    processId: text('process_id'),
    cancelRequestedAt: ms('cancel_requested_at'),
    createdAt: createdAt(),
    startedAt: ms('started_at'),
    finishedAt: ms('finished_at'),
  },
  (t) => [
    uniqueIndex('runs_conversation_key').on(t.conversationId, t.idempotencyKey),
    index('runs_conversation_created_idx').on(t.conversationId, t.createdAt),
    index('runs_status_idx').on(t.status),
    index('runs_conversation_status_idx').on(t.conversationId, t.status),
    // The conversation lock (server/agents/conversation-lock.ts) as a constraint: one pending or running run per
    // conversation, whichever process writes (ADR 033 §3). The lock's own check stays, for the friendly 409.
    uniqueIndex('runs_one_active_per_conversation').on(t.conversationId).where(sql`status in ('pending', 'running')`),
    index('runs_owner_created_idx').on(t.ownerId, t.createdAt),
    index('runs_team_idx').on(t.teamId),
    index('runs_parent_idx').on(t.parentRunId),
    index('runs_interrupted_chat_owner_idx').on(t.ownerId, t.finishedAt).where(sql.raw(INTERRUPTED_CHAT_RUN_PREDICATE)),
  ],
);

export const delegations = pgTable(
  'delegations',
  {
    seq: seq(),
    id: text('id').notNull().unique(),
    ownerId: text('owner_id').notNull(),
    parentRunId: text('parent_run_id').notNull(),
    parentConversationId: text('parent_conversation_id').notNull(),
    parentToolCallId: text('parent_tool_call_id').notNull(),
    teamId: text('team_id'),
    agentId: text('agent_id'),
    provider: text('provider').notNull(),
    spec: json('spec').$type<unknown>().notNull(),
    depth: integer('depth').notNull(),
    status: text('status', { enum: DELEGATION_STATUSES }).notNull().default('queued'),
    childConversationId: text('child_conversation_id'),
    childRunId: text('child_run_id'),
    result: json('result').$type<unknown>(),
    error: text('error'),
    createdAt: createdAt(),
    admittedAt: ms('admitted_at'),
    finishedAt: ms('finished_at'),
  },
  (t) => [
    uniqueIndex('delegations_parent_call').on(t.parentRunId, t.parentToolCallId),
    index('delegations_status_idx').on(t.status),
    index('delegations_child_run_idx').on(t.childRunId),
  ],
);

// ───────────────────────────── Teams ─────────────────────────────

export const teams = pgTable(
  'teams',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestId: text('request_id').notNull(),
    name: text('name').notNull(),
    goal: text('goal').notNull(),
    status: text('status', { enum: TEAM_STATUSES }).notNull().default('creating'),
    disconnectReason: text('disconnect_reason'),
    revision: integer('revision').notNull().default(1),
    stateRevision: integer('state_revision').notNull().default(0),
    /** 0/1 as on SQLite (not boolean): the domain code writes numbers and the planner's index reads them. */
    hasPending: integer('has_pending').notNull().default(0),
    clonedFromTeamId: text('cloned_from_team_id'),
    tokenBudget: big('token_budget'),
    moneyBudgetNanos: big('money_budget_nanos'),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('teams_owner_request_key').on(t.ownerId, t.requestId),
    index('teams_owner_created_idx').on(t.ownerId, t.createdAt),
    index('teams_pending_idx').on(t.hasPending),
  ],
);

export const teamMembers = pgTable(
  'team_members',
  {
    id: id(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    agentName: text('agent_name').notNull(),
    name: text('name').notNull(),
    position: integer('position').notNull(),
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('team_members_team_idx').on(t.teamId, t.position),
    index('team_members_conversation_idx').on(t.conversationId),
  ],
);

export const jobs = pgTable(
  'jobs',
  {
    seq: seq(),
    id: text('id').notNull().unique(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    kind: text('kind', { enum: ['request', 'receipt'] }).notNull(),
    memberId: text('member_id'),
    conversationId: text('conversation_id').notNull(),
    sourceMemberId: text('source_member_id'),
    sourceConversationId: text('source_conversation_id'),
    parentId: text('parent_id'),
    rootId: text('root_id').notNull(),
    depth: integer('depth').notNull().default(1),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('queued'),
    text: text('text').notNull(),
    requestKey: text('request_key').notNull(),
    frozenInput: json('frozen_input').$type<unknown>(),
    runKey: text('run_key'),
    runId: text('run_id'),
    waiting: json('waiting').$type<unknown>(),
    answer: json('answer').$type<unknown>(),
    answerKey: text('answer_key'),
    result: text('result'),
    resultTruncated: boolean('result_truncated'),
    error: text('error'),
    retryOfJobId: text('retry_of_job_id'),
    receiptJobId: text('receipt_job_id'),
    createdAt: createdAt(),
    admittedAt: ms('admitted_at'),
    completedAt: ms('completed_at'),
    updatedAt: ms('updated_at').notNull(),
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
    index('jobs_waiting_owner_idx').on(t.ownerId, t.updatedAt).where(sql.raw(WAITING_JOB_PREDICATE)),
  ],
);

export const sharedMessages = pgTable(
  'shared_messages',
  {
    seq: seq(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    jobId: text('job_id'),
    kind: text('kind', { enum: ['request', 'result', 'error', 'cancelled', 'note'] }).notNull(),
    senderMemberId: text('sender_member_id'),
    senderLabel: text('sender_label').notNull(),
    recipientMemberId: text('recipient_member_id'),
    text: text('text').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('shared_messages_team_seq_idx').on(t.teamId, t.seq)],
);

export const stateEntries = pgTable(
  'state_entries',
  {
    seq: seq(),
    id: text('id').notNull().unique(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    publicationKey: text('publication_key').notNull(),
    kind: text('kind', { enum: STATE_KINDS }).notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
    revision: integer('revision').notNull().default(1),
    original: json('original').$type<{ kind: string; title: string; content: string }>().notNull(),
    lastUpdate: json('last_update').$type<unknown>(),
    createdByMemberId: text('created_by_member_id'),
    updatedByMemberId: text('updated_by_member_id'),
    sourceConversationId: text('source_conversation_id'),
    sourceJobId: text('source_job_id'),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('state_entries_publication_key').on(t.teamId, t.publicationKey)],
);

export const appProcesses = pgTable('app_processes', {
  id: text('id').primaryKey(),
  pid: integer('pid').notNull(),
  host: text('host').notNull(),
  startedAt: ms('started_at').notNull(),
  heartbeatAt: ms('heartbeat_at').notNull(),
});

export const teamLeases = pgTable('team_leases', {
  teamId: text('team_id')
    .primaryKey()
    .references(() => teams.id, { onDelete: 'cascade' }),
  processId: text('process_id').notNull(),
  epoch: integer('epoch').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

export const schedulerRounds = pgTable('scheduler_rounds', {
  name: text('name').primaryKey(),
  round: json('round').$type<unknown>().notNull(),
  updatedAt: ms('updated_at').notNull(),
});

export const providers = pgTable('providers', {
  id: id(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['openai', 'anthropic', 'ollama'] }).notNull(),
  baseUrl: text('base_url').notNull(),
  apiKeyCipher: text('api_key_cipher'),
  apiKeyLast4: text('api_key_last4'),
  models: json('models').$type<string[]>(),
  modelsFetchedAt: ms('models_fetched_at'),
  maxConcurrent: integer('max_concurrent'),
  requestsPerMinute: integer('requests_per_minute'),
  createdAt: createdAt(),
  updatedAt: ms('updated_at').notNull(),
});

export const mcpServers = pgTable(
  'mcp_servers',
  {
    id: id(),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    name: text('name').notNull(),
    transport: text('transport', { enum: ['stdio', 'http'] }).notNull(),
    command: text('command'),
    args: json('args').$type<string[]>(),
    urlShown: text('url_shown'),
    envNames: json('env_names').$type<string[]>(),
    headerNames: json('header_names').$type<string[]>(),
    secretsCipher: text('secrets_cipher'),
    timeoutMs: integer('timeout_ms').notNull(),
    maxConcurrent: integer('max_concurrent').notNull(),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('mcp_servers_scope_name_idx').on(t.scope, t.name), index('mcp_servers_owner_idx').on(t.ownerId)],
);

/**
 * Each MCP server's last discovery, whichever process made it (ADR 057): status, the error, when checked, and the
 * tools as last listed (kept through an error, so a run still offers them). listed_at null: never listed. Written
 * only for the definition it was read from (a discovery of an edited or deleted server is dropped).
 */
export const mcpDiscoveries = pgTable('mcp_discoveries', {
  serverId: text('server_id')
    .primaryKey()
    .references(() => mcpServers.id, { onDelete: 'cascade' }),
  status: text('status', { enum: ['connected', 'error'] }).notNull(),
  error: text('error'),
  checkedAt: ms('checked_at').notNull(),
  tools: json('tools').$type<McpDiscoveredTool[]>().notNull(),
  toolsTruncated: boolean('tools_truncated').notNull(),
  listedAt: ms('listed_at'),
});

export const providerCalls = pgTable(
  'provider_calls',
  {
    id: text('id').primaryKey(),
    providerKey: text('provider_key').notNull(),
    runId: text('run_id'),
    state: text('state', { enum: ['waiting', 'running', 'done'] }).notNull(),
    queuedAt: big('queued_at').notNull(),
    startedAt: big('started_at'),
    expiresAt: big('expires_at').notNull(),
  },
  (t) => [index('provider_calls_key_state_idx').on(t.providerKey, t.state)],
);

export const modelPrices = pgTable('model_prices', {
  model: text('model').primaryKey(),
  inputMicrosPerMillion: big('input_micros_per_million'),
  outputMicrosPerMillion: big('output_micros_per_million'),
  updatedAt: ms('updated_at').notNull(),
});

export const files = pgTable(
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
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('files_scope_name_idx').on(t.scope, t.name), index('files_owner_idx').on(t.ownerId), index('files_scope_updated_idx').on(t.scope, t.updatedAt)],
);

export const fileVersions = pgTable(
  'file_versions',
  {
    id: id(),
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    revision: integer('revision').notNull(),
    sha256: text('sha256').notNull(),
    size: big('size').notNull(),
    mediaType: text('media_type').notNull(),
    authorKind: text('author_kind', { enum: ['person', 'member'] }).notNull(),
    authorMemberId: text('author_member_id'),
    authorName: text('author_name'),
    runId: text('run_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('file_versions_file_revision_idx').on(t.fileId, t.revision), index('file_versions_sha_idx').on(t.sha256), index('file_versions_owner_idx').on(t.ownerId)],
);

export const fileBlobs = pgTable('file_blobs', {
  sha256: text('sha256').primaryKey(),
  size: big('size').notNull(),
  loOid: big('lo_oid'),
  createdAt: createdAt(),
});

export const fileAttachments = pgTable(
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
    size: big('size').notNull(),
  },
  (t) => [uniqueIndex('file_attachments_target_file_idx').on(t.targetId, t.fileId), index('file_attachments_file_idx').on(t.fileId)],
);

// ───────────────────────────── Batches (ADR 059) ─────────────────────────────

export const batches = pgTable(
  'batches',
  {
    seq: seq(),
    id: text('id').notNull().unique(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: BATCH_STATUSES }).notNull().default('running'),
    targetKind: text('target_kind', { enum: ['agent', 'member'] }).notNull(),
    agentId: text('agent_id'),
    teamId: text('team_id'),
    memberId: text('member_id'),
    targetName: text('target_name').notNull(),
    template: text('template').notNull(),
    columns: json('columns').$type<string[]>().notNull(),
    total: integer('total').notNull(),
    concurrency: integer('concurrency').notNull(),
    maxAttempts: integer('max_attempts').notNull(),
    origin: text('origin', { enum: ['person', 'tool'] }).notNull(),
    parentRunId: text('parent_run_id'),
    parentConversationId: text('parent_conversation_id'),
    parentToolCallId: text('parent_tool_call_id'),
    notify: text('notify', { enum: ['none', 'wait', 'message'] }).notNull().default('none'),
    notifiedAt: ms('notified_at'),
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
    finishedAt: ms('finished_at'),
  },
  (t) => [
    index('batches_owner_seq_idx').on(t.ownerId, t.seq),
    index('batches_status_idx').on(t.status),
    uniqueIndex('batches_owner_key').on(t.ownerId, t.idempotencyKey),
    uniqueIndex('batches_parent_call').on(t.parentRunId, t.parentToolCallId),
  ],
);

export const batchItems = pgTable(
  'batch_items',
  {
    seq: seq(),
    id: text('id').notNull().unique(),
    batchId: text('batch_id')
      .notNull()
      .references(() => batches.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    idx: integer('idx').notNull(),
    status: text('status', { enum: BATCH_ITEM_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lease: integer('lease').notNull().default(0),
    leaseExpiresAt: ms('lease_expires_at'),
    // The process that admitted the item (its launch runs there): a dead one's unlaunched item is released at once.
    leaseProcessId: text('lease_process_id'),
    input: json('input').$type<Record<string, string>>().notNull(),
    result: text('result'),
    resultTruncated: boolean('result_truncated').notNull().default(false),
    error: text('error'),
    conversationId: text('conversation_id'),
    runId: text('run_id'),
    waitingSince: ms('waiting_since'),
    answer: json('answer').$type<unknown>(),
    startedAt: ms('started_at'),
    finishedAt: ms('finished_at'),
  },
  (t) => [
    uniqueIndex('batch_items_batch_idx').on(t.batchId, t.idx),
    index('batch_items_batch_status_idx').on(t.batchId, t.status, t.idx),
    index('batch_items_status_idx').on(t.status),
    index('batch_items_run_idx').on(t.runId),
    index('batch_items_waiting_owner_idx').on(t.ownerId, t.waitingSince).where(sql.raw(WAITING_BATCH_ITEM_PREDICATE)),
  ],
);

export const skills = pgTable(
  'skills',
  {
    id: id(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    description: text('description').notNull(),
    hash: text('hash').notNull(),
    createdAt: createdAt(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [uniqueIndex('skills_owner_name_key').on(t.ownerId, t.nameKey)],
);

export const skillFiles = pgTable(
  'skill_files',
  {
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id').notNull(),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    size: big('size').notNull(),
  },
  (t) => [uniqueIndex('skill_files_skill_path_idx').on(t.skillId, t.path), index('skill_files_sha_idx').on(t.sha256)],
);

export const webCalls = pgTable(
  'web_calls',
  {
    id: big('id').primaryKey().generatedByDefaultAsIdentity(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    at: big('at').notNull(),
  },
  (t) => [index('web_calls_owner_at_idx').on(t.ownerId, t.at)],
);
