import 'server-only';
import crypto from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { charCount, describeTextProblem, hasLoneSurrogate, jsonBytes, textProblem, type TextBound } from '@/lib/text-bounds';
import type { ApiStateEntry } from '@/lib/types/team';
import { getDb, readTx, schema, writeTx, type Db } from '@/server/db';
import { statement } from '@/server/db/statement';
import { STATE_KINDS, type StateEntry } from '@/server/db/schema';
import { buildSharedContext, contextBytes } from './context';
import { touchTeam } from './revision';
import { requireTeam } from './teams';

/**
 * Team public state: objectives, plans, findings, questions and requirements members publish and update.
 * Pure database logic (no LangGraph): the member tools in tools/state.ts and the HTTP API both call it.
 *
 * Bounds, all checked inside the write transaction against what the write would leave behind, so a refused
 * write rolls back completely:
 * - at most 20 entries per team, archived ones included (archiving never frees a slot);
 * - the projection — JSON.stringify of every entry as read_team_state returns it with include_archived — at
 *   most 16,000 UTF-8 bytes;
 * - the shared context without recent messages (goal, roster, active state) at most 24,000 bytes, so state
 *   never crowds the goal or roster out of a member's context.
 */

export type StateKind = (typeof STATE_KINDS)[number];
export type StateStatus = 'active' | 'archived';
export { STATE_KINDS };

/** Who writes: always derived from the run's server-owned context, never from model-written arguments. */
export type StateActor = { teamId: string; memberId: string; conversationId: string; jobId: string | null };
/**
 * A writer of either side: a member (StateActor) or the person in charge (memberId, conversationId and jobId all
 * null — shown as "You"). `keyScope` scopes publication keys: the member's conversation id, or "person".
 */
export type StateWriter = { teamId: string; memberId: string | null; conversationId: string | null; jobId: string | null; keyScope: string };

export type PublishInput = { requestId: string; kind: string; title: string; content: string };
export type UpdateInput = { entryId: string; expectedRevision: number; title: string; content: string; status: string };
/** An update where an absent field keeps the entry's current value (the person's PATCH). */
export type PartialUpdateInput = { entryId: string; expectedRevision: number; title?: string; content?: string; status?: string };
export type ReadFilter = { entryId?: string; kind?: string; query?: string; includeArchived?: boolean };

export type PublishResult = { entry: ApiStateEntry; revision: number };
export type UpdateResult = { updated: true; entry: ApiStateEntry } | { updated: false; conflict: true; entry: ApiStateEntry };
export type StateView = { revision: number; entries: ApiStateEntry[] };

/** A refused state write or read; the message tells the member what to do instead. Nothing was written. */
export class StateRefusal extends Error {
  constructor(
    readonly code: 'invalid' | 'not_found' | 'request_id_reused' | 'entry_limit' | 'projection_limit' | 'context_limit',
    message: string,
    /** For budget refusals: the size the write would have left and its limit, so each side can word its own message. */
    readonly figures?: { value: number; limit: number },
  ) {
    super(message);
    this.name = 'StateRefusal';
  }
}

const REQUEST_ID_MAX = 200;
const QUERY_MAX_CHARS = 1_000;
const fmt = (n: number) => n.toLocaleString('en-US');
const countEntries = statement('select count(*) as n from state_entries where team_id = ?');

// ─────────────────────────────── validation ───────────────────────────────

function checkText(field: 'title' | 'content', value: unknown, bounds: TextBound, required: boolean): string {
  if (typeof value !== 'string') throw new StateRefusal('invalid', `${field} must be a string`);
  // Members' tool calls write here too: their control characters are kept (NUL repaired when stored, ADR 046).
  const problem = textProblem(value, bounds, { required, allowControls: true });
  if (problem) throw new StateRefusal('invalid', describeTextProblem(problem, field) + (problem.kind === 'too_long' ? '. Shorten it.' : ''));
  return value;
}

const checkTitle = (value: unknown) => checkText('title', value, LIMITS.publicState.title, true);
const checkContent = (value: unknown) => checkText('content', value, LIMITS.publicState.content, false);

function checkKind(kind: unknown): StateKind {
  if (typeof kind !== 'string' || !(STATE_KINDS as readonly string[]).includes(kind)) {
    throw new StateRefusal('invalid', `kind must be one of ${STATE_KINDS.join(', ')}`);
  }
  return kind as StateKind;
}

function checkStatus(status: unknown): StateStatus {
  if (status !== 'active' && status !== 'archived') throw new StateRefusal('invalid', 'status must be active or archived');
  return status;
}

function checkRequestId(requestId: unknown): string {
  if (typeof requestId !== 'string' || requestId.trim().length === 0) throw new StateRefusal('invalid', 'request_id is required');
  if (requestId.length > REQUEST_ID_MAX || hasLoneSurrogate(requestId)) {
    throw new StateRefusal('invalid', `request_id must be at most ${REQUEST_ID_MAX} characters`);
  }
  return requestId;
}

// ─────────────────────────────── reading ───────────────────────────────

async function memberNames(db: Db, teamId: string): Promise<Map<string, string>> {
  const rows = await db.select({ id: schema.teamMembers.id, name: schema.teamMembers.name }).from(schema.teamMembers).where(eq(schema.teamMembers.teamId, teamId));
  return new Map(rows.map((r) => [r.id, r.name]));
}

function toApiEntry(row: StateEntry, names: ReadonlyMap<string, string>): ApiStateEntry {
  // No member: the person wrote it.
  const author = (memberId: string | null) => ({ memberId, name: memberId === null ? 'You' : (names.get(memberId) ?? 'Former member') });
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    content: row.content,
    status: row.status,
    revision: row.revision,
    createdBy: author(row.createdByMemberId),
    updatedBy: author(row.updatedByMemberId),
    source: { conversationId: row.sourceConversationId, jobId: row.sourceJobId },
    updatedAt: row.updatedAt.toISOString(),
  };
}

function entryRows(db: Db, teamId: string): Promise<StateEntry[]> {
  return db.select().from(schema.stateEntries).where(eq(schema.stateEntries.teamId, teamId)).orderBy(asc(schema.stateEntries.seq));
}

async function stateRevision(db: Db, teamId: string): Promise<number> {
  return (await db.select({ r: schema.teams.stateRevision }).from(schema.teams).where(eq(schema.teams.id, teamId)))[0]?.r ?? 0;
}

/** Every entry of the team (archived included), oldest publication first, in the shape the tools and API return. */
export async function allEntries(teamId: string, db: Db = getDb()): Promise<ApiStateEntry[]> {
  const names = await memberNames(db, teamId);
  return (await entryRows(db, teamId)).map((row) => toApiEntry(row, names));
}

/** The byte size the 16,000-byte budget measures: UTF-8 JSON of every entry as read_team_state returns it. */
export const projectionBytes = (entries: readonly ApiStateEntry[]) => jsonBytes(entries);

/** The shared context's size without recent messages: goal, roster and active state. */
export async function stateContextBytes(teamId: string, db: Db = getDb()): Promise<number> {
  return contextBytes({ ...(await buildSharedContext(teamId, db)), recentMessages: [] });
}

/**
 * read_team_state: every matching entry and the team-state revision (the collection is bounded, so no paging).
 * The query is a literal, case-insensitive substring of the title or content; archived entries only on request.
 */
export async function readState(teamId: string, filter: ReadFilter = {}): Promise<StateView> {
  if (filter.kind !== undefined) checkKind(filter.kind);
  const query = filter.query ?? '';
  if (charCount(query) > QUERY_MAX_CHARS) throw new StateRefusal('invalid', `query must be at most ${fmt(QUERY_MAX_CHARS)} characters`);
  const needle = query.toLowerCase();
  // One snapshot: the revision and the entries are read in the same read transaction (inside a write transaction,
  // that transaction).
  return readTx(async (db) => {
    const entries = (await allEntries(teamId, db)).filter(
      (e) =>
        (filter.includeArchived || e.status === 'active') &&
        (filter.entryId === undefined || e.id === filter.entryId) &&
        (filter.kind === undefined || e.kind === filter.kind) &&
        (!needle || e.title.toLowerCase().includes(needle) || e.content.toLowerCase().includes(needle)),
    );
    return { revision: await stateRevision(db, teamId), entries };
  });
}

/** GET /api/v1/teams/:id/state: the owner's team state, archived entries included (404 across owners). */
export async function listStateForApi(ownerId: string, teamId: string): Promise<StateView> {
  await requireTeam(ownerId, teamId);
  return readState(teamId, { includeArchived: true });
}

// ─────────────────────────────── writing ───────────────────────────────

/**
 * Bump the state revision and the activity revision, then check every budget against the state as written.
 * Throwing here rolls the whole write transaction back, so a refused write leaves nothing behind.
 */
async function commitWrite(tx: Db, teamId: string): Promise<number> {
  const [row] = await tx
    .update(schema.teams)
    .set({ stateRevision: sql`${schema.teams.stateRevision} + 1` })
    .where(eq(schema.teams.id, teamId))
    .returning({ r: schema.teams.stateRevision });
  await touchTeam(tx, teamId, []);

  const projection = projectionBytes(await allEntries(teamId, tx));
  if (projection > LIMITS.publicState.projectionBytes) {
    throw new StateRefusal(
      'projection_limit',
      `Team state would take ${fmt(projection)} bytes, over its ${fmt(LIMITS.publicState.projectionBytes)}-byte budget ` +
        `(UTF-8 JSON of all entries, archived ones included). Shorten or reuse existing entries with update_team_state.`,
      { value: projection, limit: LIMITS.publicState.projectionBytes },
    );
  }
  const context = await stateContextBytes(teamId, tx);
  if (context > LIMITS.sharedContext.maxBytes) {
    throw new StateRefusal(
      'context_limit',
      `The shared context (goal, roster and active state) would take ${fmt(context)} bytes, over its ` +
        `${fmt(LIMITS.sharedContext.maxBytes)}-byte budget. Shorten or archive active entries with update_team_state.`,
      { value: context, limit: LIMITS.sharedContext.maxBytes },
    );
  }
  return row?.r ?? 0;
}

/**
 * publish_team_state. The publication key (calling conversation + request id) makes a retry return the same
 * entry — as it is now, even after later updates. The same key with different original content is refused.
 */
export async function publishState(actor: StateActor, input: PublishInput): Promise<PublishResult> {
  const { entry, revision } = await publishEntry({ ...actor, keyScope: actor.conversationId }, input);
  return { entry, revision };
}

/**
 * Publish as either side (see StateWriter). `created` is false when the key found the entry it made before.
 * The person's key scope ("person") can't collide with a member's (a conversation id).
 */
export async function publishEntry(actor: StateWriter, input: PublishInput): Promise<PublishResult & { created: boolean }> {
  const requestId = checkRequestId(input.requestId);
  const kind = checkKind(input.kind);
  const title = checkTitle(input.title);
  const content = checkContent(input.content);
  const publicationKey = `${actor.keyScope}:${requestId}`;

  return writeTx(async (tx) => {
    const [existing] = await tx
      .select()
      .from(schema.stateEntries)
      .where(and(eq(schema.stateEntries.teamId, actor.teamId), eq(schema.stateEntries.publicationKey, publicationKey)))
      .limit(1);
    if (existing) {
      const o = existing.original;
      if (o.kind !== kind || o.title !== title || o.content !== content) {
        throw new StateRefusal(
          'request_id_reused',
          `request_id "${requestId}" was already used for a different publication. Use a new request_id to publish ` +
            `something else, or update_team_state to change entry ${existing.id}.`,
        );
      }
      return { entry: toApiEntry(existing, await memberNames(tx, actor.teamId)), revision: await stateRevision(tx, actor.teamId), created: false };
    }

    const count = (await countEntries.get<{ n: number }>(actor.teamId))!;
    if (count.n >= LIMITS.publicState.entries) {
      throw new StateRefusal(
        'entry_limit',
        `Team state is full: ${LIMITS.publicState.entries} entries, archived ones included (archiving does not free a slot). ` +
          `Reuse an existing entry with update_team_state, or shorten existing entries, instead of publishing a new one.`,
      );
    }

    const now = new Date();
    const [row] = await tx
      .insert(schema.stateEntries)
      .values({
        id: crypto.randomUUID(),
        teamId: actor.teamId,
        publicationKey,
        kind,
        title,
        content,
        status: 'active',
        revision: 1,
        original: { kind, title, content },
        lastUpdate: null,
        createdByMemberId: actor.memberId,
        updatedByMemberId: actor.memberId,
        sourceConversationId: actor.conversationId,
        sourceJobId: actor.jobId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const revision = await commitWrite(tx, actor.teamId);
    return { entry: toApiEntry(row!, await memberNames(tx, actor.teamId)), revision, created: true };
  });
}

type LastUpdate = { expectedRevision: number; title: string; content: string; status: StateStatus };

const sameUpdate = (a: unknown, b: LastUpdate) => {
  const x = a as Partial<LastUpdate> | null;
  return !!x && x.expectedRevision === b.expectedRevision && x.title === b.title && x.content === b.content && x.status === b.status;
};

/**
 * update_team_state. The entry revision is compared inside the write transaction: a stale expected_revision is
 * a conflict answered with the current entry. An identical retry of the latest successful update succeeds
 * without a new revision; older retries conflict. Kind and creator never change; the editor, time and source
 * are stamped from the actor.
 */
export async function updateState(actor: StateActor, input: UpdateInput): Promise<UpdateResult> {
  // A member states every field: checked here, so a missing one is refused rather than kept.
  checkTitle(input.title);
  checkContent(input.content);
  checkStatus(input.status);
  return updateEntry({ ...actor, keyScope: actor.conversationId }, input);
}

/** Update as either side; an absent title, content or status keeps the entry's current value. */
export async function updateEntry(actor: StateWriter, input: PartialUpdateInput): Promise<UpdateResult> {
  if (typeof input.entryId !== 'string' || !input.entryId) throw new StateRefusal('invalid', 'entry_id is required');
  if (!Number.isSafeInteger(input.expectedRevision) || input.expectedRevision < 1) {
    throw new StateRefusal('invalid', 'expected_revision must be a whole number of at least 1 (the entry revision you read)');
  }
  const title = input.title === undefined ? undefined : checkTitle(input.title);
  const content = input.content === undefined ? undefined : checkContent(input.content);
  const status = input.status === undefined ? undefined : checkStatus(input.status);

  return writeTx(async (tx) => {
    const [row] = await tx
      .select()
      .from(schema.stateEntries)
      .where(and(eq(schema.stateEntries.id, input.entryId), eq(schema.stateEntries.teamId, actor.teamId)))
      .limit(1);
    if (!row) throw new StateRefusal('not_found', `No state entry "${input.entryId}" in this team. Use read_team_state to find entry ids.`);
    const names = await memberNames(tx, actor.teamId);
    const request: LastUpdate = {
      expectedRevision: input.expectedRevision,
      title: title ?? row.title,
      content: content ?? row.content,
      status: status ?? row.status,
    };

    if (sameUpdate(row.lastUpdate, request)) return { updated: true, entry: toApiEntry(row, names) };
    if (row.revision !== request.expectedRevision) return { updated: false, conflict: true, entry: toApiEntry(row, names) };
    // Already exactly what was asked: nothing to write, no new revision.
    if (row.title === request.title && row.content === request.content && row.status === request.status) {
      return { updated: true, entry: toApiEntry(row, names) };
    }

    const [updated] = await tx
      .update(schema.stateEntries)
      .set({
        title: request.title,
        content: request.content,
        status: request.status,
        revision: row.revision + 1,
        lastUpdate: request,
        updatedByMemberId: actor.memberId,
        sourceConversationId: actor.conversationId,
        sourceJobId: actor.jobId,
        updatedAt: new Date(),
      })
      .where(eq(schema.stateEntries.id, row.id))
      .returning();
    await commitWrite(tx, actor.teamId);
    return { updated: true, entry: toApiEntry(updated!, names) };
  });
}
