import 'server-only';
import crypto from 'node:crypto';
import { and, desc, eq, inArray, lt, or, type SQL } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import type { HistoryFilterInput } from '@/lib/schemas/team-history';
import { truncateText } from '@/lib/text';
import { jsonBytes } from '@/lib/text-bounds';
import type {
  AnswerExcerpt,
  HistoryMessage,
  HistoryPage,
  HistoryParty,
  HistoryRequester,
  ResultsPage,
  ResultSummary,
  TeamResult,
  TeamResultAnswer,
} from '@/lib/types/team-history';
import { getDb, schema, type Db } from '@/server/db';
import { FINISHED_JOB_STATUSES, UNFINISHED_JOB_STATUSES, type Job, type TeamMember } from '@/server/db/schema';
import { AppError } from '@/server/http/errors';
import { teamMembers } from './teams';

/**
 * Read-only views of a team's evidence: the retained shared record (≤ 100 messages), finished requests with
 * their stored answers, and one job with its retained answer. Pages are live (each read sees the current rows)
 * and anchored to record identity, so records arriving meanwhile never shift a page.
 */

const H = LIMITS.history;
type Listing = 'history' | 'results';
type Filters = { memberId?: string; jobId?: string; query?: string };

const UNFINISHED = new Set<string>(UNFINISHED_JOB_STATUSES);

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

// ───────────────────────────── cursors ─────────────────────────────

/** A short hash of the listing, team and filters: a cursor only continues the query it came from. */
export function filterHash(listing: Listing, teamId: string, filters: Filters): string {
  const canonical = JSON.stringify([listing, teamId, filters.memberId ?? null, filters.jobId ?? null, filters.query ?? null]);
  return crypto.createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** `v1.<seq of the last record returned>.<filter hash>`: URL-safe ASCII, no escaping in JSON. */
export function encodeCursor(listing: Listing, teamId: string, filters: Filters, seq: number): string {
  return `v1.${seq}.${filterHash(listing, teamId, filters)}`;
}

/** The anchor seq of a cursor issued for exactly these filters; a 400 otherwise. */
export function decodeCursor(cursor: string, listing: Listing, teamId: string, filters: Filters): number {
  const match = /^v1\.(\d{1,15})\.([0-9a-f]{16})$/.exec(cursor);
  if (!match) throw new AppError(400, 'invalid_cursor', 'Not a cursor from this listing; start again without a cursor');
  if (match[2] !== filterHash(listing, teamId, filters)) {
    throw new AppError(
      400,
      'cursor_mismatch',
      'This cursor belongs to a different query: repeat the same member_id, job_id and query, or start again without a cursor',
    );
  }
  return Number(match[1]);
}

// ───────────────────────────── filters ─────────────────────────────

function checkLimit(limit: number | undefined): number {
  const n = limit ?? H.defaultLimit;
  if (!Number.isInteger(n) || n < H.minLimit || n > H.maxLimit) {
    throw new AppError(400, 'invalid_limit', `limit must be a whole number from ${H.minLimit} to ${H.maxLimit}`);
  }
  return n;
}

/** A member by id, or by name ignoring case (models often use names). */
function findMember(members: TeamMember[], ref: string): TeamMember | undefined {
  const lower = ref.toLowerCase();
  return members.find((m) => m.id === ref) ?? members.find((m) => m.name.toLowerCase() === lower);
}

async function resolveFilters(teamId: string, input: HistoryFilterInput, members: TeamMember[], db: Db): Promise<Filters> {
  const filters: Filters = {};
  if (input.memberId) {
    const member = findMember(members, input.memberId);
    if (!member) throw new AppError(400, 'unknown_member', `No member "${input.memberId}" in this team; use a member id or name from the roster`);
    filters.memberId = member.id;
  }
  if (input.jobId) {
    const [job] = await db
      .select({ id: schema.jobs.id })
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, teamId), eq(schema.jobs.id, input.jobId)))
      .limit(1);
    if (!job) throw new AppError(400, 'unknown_job', `No request or receipt "${input.jobId}" in this team`);
    filters.jobId = job.id;
  }
  if (input.query) filters.query = input.query;
  return filters;
}

/** Literal, case-insensitive containment (no patterns, no wildcards). */
function contains(haystacks: Array<string | null>, query: string | undefined): boolean {
  if (query === undefined) return true;
  const needle = query.toLowerCase();
  return haystacks.some((h) => h !== null && h.toLowerCase().includes(needle));
}

// ───────────────────────────── page assembly ─────────────────────────────

type PageMeta = { next_cursor: string | null; cursor_expired: boolean; bytes_limited: boolean };

/** The longest prefix (in code points) of text that still fits; always at least the empty string. */
function longestFitting(text: string, fits: (prefix: string) => boolean): string {
  const chars = Array.from(text);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(chars.slice(0, mid).join(''))) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join('');
}

/**
 * Fill a page newest first, up to `limit` records and the response byte bound measured on the whole JSON
 * (metadata and escaping included). A record that does not fit ends the page (next_cursor then points after the
 * last included record); only a page's first record is shortened to fit, so every page makes progress.
 */
function assemblePage<C extends { seq: number }, R>(opts: {
  matched: C[];
  limit: number;
  render: (c: C) => R;
  shrink: (c: C, fits: (record: R) => boolean) => R;
  cursor: (seq: number) => string;
  wrap: (records: R[], meta: PageMeta) => unknown;
}): { records: R[]; meta: PageMeta } {
  const { matched, limit, render, shrink, cursor, wrap } = opts;
  const records: R[] = [];
  let lastSeq: number | null = null;
  let bytesLimited = false;
  for (const candidate of matched.slice(0, limit)) {
    // Measure with a cursor present and bytes_limited false: the longest metadata this page can end with.
    const meta: PageMeta = { next_cursor: cursor(candidate.seq), cursor_expired: false, bytes_limited: false };
    const fits = (record: R) => jsonBytes(wrap([...records, record], meta)) <= H.responseBytes;
    let record = render(candidate);
    if (!fits(record)) {
      if (records.length) {
        bytesLimited = true;
        break;
      }
      record = shrink(candidate, fits);
    }
    records.push(record);
    lastSeq = candidate.seq;
  }
  const more = bytesLimited || matched.length > records.length;
  return { records, meta: { next_cursor: more && lastSeq !== null ? cursor(lastSeq) : null, cursor_expired: false, bytes_limited: bytesLimited } };
}

const expired: PageMeta = { next_cursor: null, cursor_expired: true, bytes_limited: false };

function nameMap(members: TeamMember[]): Map<string, string> {
  return new Map(members.map((m) => [m.id, m.name]));
}

const memberRef = (names: Map<string, string>, memberId: string | null): HistoryParty | null =>
  memberId ? { member_id: memberId, name: names.get(memberId) ?? 'A former member' } : null;

function requesterOf(job: Pick<Job, 'sourceMemberId' | 'sourceConversationId'>, names: Map<string, string>): HistoryRequester {
  if (job.sourceMemberId) {
    return { member_id: job.sourceMemberId, name: names.get(job.sourceMemberId) ?? 'A former member', conversation_id: job.sourceConversationId };
  }
  return { member_id: null, name: 'You', conversation_id: job.sourceConversationId };
}

// ───────────────────────────── read_team_history ─────────────────────────────

/**
 * Retained shared-record messages, newest first. Filters (member as sender or recipient, job, literal query)
 * apply before pagination. An anchor that was rotated out of the record answers an empty, expired page.
 */
export async function readHistory(teamId: string, input: HistoryFilterInput = {}, db: Db = getDb()): Promise<HistoryPage> {
  const limit = checkLimit(input.limit);
  const members = await teamMembers(teamId, db);
  const filters = await resolveFilters(teamId, input, members, db);
  const m = schema.sharedMessages;
  const where: SQL[] = [eq(m.teamId, teamId)];
  if (input.cursor) {
    const anchor = decodeCursor(input.cursor, 'history', teamId, filters);
    const [retained] = await db.select({ seq: m.seq }).from(m).where(and(eq(m.teamId, teamId), eq(m.seq, anchor))).limit(1);
    if (!retained) return { messages: [], ...expired };
    where.push(lt(m.seq, anchor));
  }
  if (filters.memberId) where.push(or(eq(m.senderMemberId, filters.memberId), eq(m.recipientMemberId, filters.memberId))!);
  if (filters.jobId) where.push(eq(m.jobId, filters.jobId));
  const rows = await db.select().from(m).where(and(...where)).orderBy(desc(m.seq));
  const matched = rows.filter((r) => contains([r.text], filters.query)).slice(0, limit + 1);

  const names = nameMap(members);
  const render = (r: (typeof rows)[number], text?: string): HistoryMessage => {
    const bounded = truncateText(r.text, H.textBytes);
    return {
      seq: r.seq,
      job_id: r.jobId,
      kind: r.kind,
      sender: { member_id: r.senderMemberId, name: r.senderLabel },
      recipient: memberRef(names, r.recipientMemberId),
      text: text ?? bounded.text,
      truncated: text !== undefined ? text.length < r.text.length : bounded.truncated,
      created_at: r.createdAt.toISOString(),
    };
  };
  const wrap = (messages: HistoryMessage[], meta: PageMeta): HistoryPage => ({ messages, ...meta });
  const { records, meta } = assemblePage({
    matched,
    limit,
    render: (r) => render(r),
    shrink: (r, fits) => render(r, longestFitting(truncateText(r.text, H.textBytes).text, (t) => fits(render(r, t)))),
    cursor: (seq) => encodeCursor('history', teamId, filters, seq),
    wrap,
  });
  return wrap(records, meta);
}

// ───────────────────────────── search_team_results ─────────────────────────────

/** The columns the readers need (never the frozen input, which can be large). */
const jobColumns = {
  seq: schema.jobs.seq,
  id: schema.jobs.id,
  kind: schema.jobs.kind,
  status: schema.jobs.status,
  memberId: schema.jobs.memberId,
  conversationId: schema.jobs.conversationId,
  sourceMemberId: schema.jobs.sourceMemberId,
  sourceConversationId: schema.jobs.sourceConversationId,
  parentId: schema.jobs.parentId,
  rootId: schema.jobs.rootId,
  text: schema.jobs.text,
  runId: schema.jobs.runId,
  result: schema.jobs.result,
  resultTruncated: schema.jobs.resultTruncated,
  error: schema.jobs.error,
  createdAt: schema.jobs.createdAt,
  admittedAt: schema.jobs.admittedAt,
  completedAt: schema.jobs.completedAt,
  updatedAt: schema.jobs.updatedAt,
};
type JobRow = Pick<Job, keyof typeof jobColumns>;

/** The job's retained answer: its stored result (completed) or error (failed), or why there is none. */
function storedAnswer(job: JobRow): { kind: 'result' | 'error'; text: string; truncatedAtSource: boolean } | { reason: 'unfinished' | 'cancelled' | 'not_retained' } {
  if (UNFINISHED.has(job.status)) return { reason: 'unfinished' };
  if (job.status === 'failed' && job.error !== null) return { kind: 'error', text: job.error, truncatedAtSource: false };
  if (job.result !== null) return { kind: 'result', text: job.result, truncatedAtSource: !!job.resultTruncated };
  return { reason: job.status === 'cancelled' ? 'cancelled' : 'not_retained' };
}

function answerExcerpt(job: JobRow, maxBytes: number): AnswerExcerpt {
  const answer = storedAnswer(job);
  if ('reason' in answer) return { available: false, reason: answer.reason };
  const cut = truncateText(answer.text, maxBytes);
  return { available: true, kind: answer.kind, excerpt: cut.text, truncated: cut.truncated || answer.truncatedAtSource };
}

/**
 * Finished requests (completed, failed, cancelled; receipts excluded), newest first by request creation.
 * `member_id` matches the member asked or the member who asked; `job_id` matches that request and the
 * handoffs it started; `query` searches the request text and the stored answer (result or error).
 */
export async function searchResults(teamId: string, input: HistoryFilterInput = {}, db: Db = getDb()): Promise<ResultsPage> {
  const limit = checkLimit(input.limit);
  const members = await teamMembers(teamId, db);
  const filters = await resolveFilters(teamId, input, members, db);
  const j = schema.jobs;
  const where: SQL[] = [eq(j.teamId, teamId), eq(j.kind, 'request'), inArray(j.status, [...FINISHED_JOB_STATUSES])];
  if (input.cursor) {
    const anchor = decodeCursor(input.cursor, 'results', teamId, filters);
    const [kept] = await db.select({ seq: j.seq }).from(j).where(and(eq(j.teamId, teamId), eq(j.seq, anchor))).limit(1);
    if (!kept) return { results: [], ...expired };
    where.push(lt(j.seq, anchor));
  }
  if (filters.memberId) where.push(or(eq(j.memberId, filters.memberId), eq(j.sourceMemberId, filters.memberId))!);
  if (filters.jobId) where.push(or(eq(j.id, filters.jobId), eq(j.parentId, filters.jobId))!);
  const rows = await db.select(jobColumns).from(j).where(and(...where)).orderBy(desc(j.seq));
  const matched = rows.filter((r) => contains([r.text, r.result, r.error], filters.query)).slice(0, limit + 1);

  const names = nameMap(members);
  const render = (r: JobRow, answerBytes: number = H.excerptBytes): ResultSummary => {
    const request = truncateText(r.text, H.excerptBytes);
    return {
      job_id: r.id,
      status: r.status as ResultSummary['status'],
      member: memberRef(names, r.memberId),
      requester: requesterOf(r, names),
      parent_id: r.parentId,
      created_at: r.createdAt.toISOString(),
      completed_at: iso(r.completedAt),
      request: { excerpt: request.text, truncated: request.truncated },
      answer: answerExcerpt(r, answerBytes),
    };
  };
  const wrap = (results: ResultSummary[], meta: PageMeta): ResultsPage => ({ results, ...meta });
  const { records, meta } = assemblePage({
    matched,
    limit,
    render: (r) => render(r),
    // Excerpts are small enough that one record always fits; shortening the answer is only a safeguard.
    shrink: (r, fits) => {
      for (let bytes: number = H.excerptBytes; bytes > 0; bytes = Math.floor(bytes / 2)) {
        if (fits(render(r, bytes))) return render(r, bytes);
      }
      return render(r, 0);
    },
    cursor: (seq) => encodeCursor('results', teamId, filters, seq),
    wrap,
  });
  return wrap(records, meta);
}

// ───────────────────────────── read_team_result ─────────────────────────────

/**
 * One request or receipt of the team with its retained answer (≤ 6,000 bytes, shortened further only if the
 * whole response would exceed 24,000 bytes). Null when the team has no such job. Readable after the shared
 * record rotated and after a restart: the job row keeps its own bounded answer.
 */
export async function readResult(teamId: string, jobId: string, db: Db = getDb()): Promise<TeamResult | null> {
  const [job] = await db
    .select(jobColumns)
    .from(schema.jobs)
    .where(and(eq(schema.jobs.teamId, teamId), eq(schema.jobs.id, jobId)))
    .limit(1);
  if (!job) return null;
  const names = nameMap(await teamMembers(teamId, db));
  const request = truncateText(job.text, H.excerptBytes);
  const answer = storedAnswer(job);
  const build = (text?: string): TeamResult => {
    let result: TeamResultAnswer;
    if ('reason' in answer) result = { available: false, reason: answer.reason };
    else {
      const cut = truncateText(answer.text, H.textBytes);
      const shown = text ?? cut.text;
      result = { available: true, kind: answer.kind, text: shown, truncated: answer.truncatedAtSource || shown.length < answer.text.length };
    }
    return {
      job: {
        job_id: job.id,
        kind: job.kind,
        status: job.status,
        member: memberRef(names, job.memberId),
        requester: requesterOf(job, names),
        parent_id: job.parentId,
        root_id: job.rootId,
        created_at: job.createdAt.toISOString(),
        admitted_at: iso(job.admittedAt),
        completed_at: iso(job.completedAt),
        updated_at: job.updatedAt.toISOString(),
        conversation: { conversation_id: job.conversationId, run_id: job.runId },
        request: { excerpt: request.text, truncated: request.truncated },
      },
      result,
    };
  };
  const full = build();
  if (jsonBytes(full) <= H.responseBytes || !full.result.available) return full;
  const fits = (text: string) => jsonBytes(build(text)) <= H.responseBytes;
  return build(longestFitting(full.result.text, fits));
}
