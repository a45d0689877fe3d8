import { sql } from 'drizzle-orm';
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
  createdAt: createdAt(),
});

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
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
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
    maxTurns: integer('max_turns').notNull().default(25),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('agents_owner_name_key').on(t.ownerId, t.nameKey)],
);

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
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('conversations_owner_idx').on(t.ownerId, t.updatedAt)],
);

export const RUN_STATUSES = ['pending', 'running', 'success', 'error', 'interrupted', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

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
    /** 'start' sends a human message; 'resume' answers a graph interrupt. */
    kind: text('kind', { enum: ['start', 'resume'] }).notNull(),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('pending'),
    model: text('model').notNull(),
    /** The exact input, kept so a recovered run is the same request. */
    input: text('input', { mode: 'json' }).$type<unknown>().notNull(),
    /** The interrupt payload when status is 'interrupted'. */
    interrupt: text('interrupt', { mode: 'json' }).$type<unknown>(),
    error: text('error'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    createdAt: createdAt(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('runs_conversation_key').on(t.conversationId, t.idempotencyKey),
    index('runs_conversation_created_idx').on(t.conversationId, t.createdAt),
    index('runs_status_idx').on(t.status),
  ],
);

export type User = typeof users.$inferSelect;
export type Agent = typeof agents.$inferSelect;
export type Conversation = typeof conversations.$inferSelect;
export type Run = typeof runs.$inferSelect;
export type ApiToken = typeof apiTokens.$inferSelect;
