import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { utf8Bytes } from '@/lib/text-bounds';
import type { HistoryPage, ResultsPage } from '@/lib/types/team-history';
import { closeDb, getDb, schema, writeTx } from '@/server/db';
import type { Job } from '@/server/db/schema';
import { AppError } from '@/server/http/errors';
import { encodeCursor, readHistory, readResult, searchResults } from '@/server/teams/history';
import { sendRequest } from '@/server/teams/requests';
import { appendShared } from '@/server/teams/shared-record';
import { GET as historyGET } from '@/app/api/v1/teams/[id]/history/route';
import { GET as resultsGET } from '@/app/api/v1/teams/[id]/results/route';
import { GET as resultGET } from '@/app/api/v1/teams/[id]/results/[jobId]/route';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';

const H = LIMITS.history;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

type Member = { id: string; name: string; conversationId: string | null };

async function setup(names = ['Research', 'Review', 'Write']) {
  const user = await makeUser('owner');
  const { team } = await makeTeam(user.id, names);
  return { user, team, members: team.members as Member[] };
}

/** Append one shared-record line through the record's own function (it rotates beyond 100). */
async function note(teamId: string, text: string, opts: { sender?: string | null; recipient?: string | null; jobId?: string | null; kind?: 'note' | 'result' } = {}) {
  await writeTx((tx) =>
    appendShared(tx, {
      teamId,
      jobId: opts.jobId ?? null,
      kind: opts.kind ?? 'note',
      senderMemberId: opts.sender ?? null,
      senderLabel: opts.sender ? 'A member' : 'Ensemble',
      recipientMemberId: opts.recipient ?? null,
      text,
    }),
  );
}

const retainedSeqs = async (teamId: string) =>
  (await getDb().select({ seq: schema.sharedMessages.seq }).from(schema.sharedMessages).where(eq(schema.sharedMessages.teamId, teamId)))
    .map((r) => r.seq)
    .sort((a, b) => b - a);

/** One request from the person to a member, through the lead's send path (job + shared-record line). */
async function request(ownerId: string, teamId: string, memberId: string, text: string): Promise<string> {
  return (await sendRequest(ownerId, teamId, { memberIds: [memberId], text, draftKey: crypto.randomUUID() })).jobs[0]!.id;
}

/** Finish a job as the executor would: the job row keeps its bounded answer; the record gets a line. */
async function finish(jobId: string, outcome: { status: 'completed'; result: string | null; truncated?: boolean } | { status: 'failed'; error: string } | { status: 'cancelled' }) {
  await writeTx(async (tx) => {
    const now = new Date();
    const [job] = await tx
      .update(schema.jobs)
      .set({
        status: outcome.status,
        result: outcome.status === 'completed' ? outcome.result : null,
        resultTruncated: outcome.status === 'completed' ? (outcome.truncated ?? false) : null,
        error: outcome.status === 'failed' ? outcome.error : null,
        admittedAt: now,
        completedAt: now,
        updatedAt: now,
      })
      .where(eq(schema.jobs.id, jobId))
      .returning();
    const text = outcome.status === 'completed' ? (outcome.result ?? '') : outcome.status === 'failed' ? outcome.error : 'Request cancelled';
    await appendShared(tx, { teamId: job!.teamId, jobId, kind: 'result', senderMemberId: job!.memberId, senderLabel: 'A member', recipientMemberId: job!.sourceMemberId, text });
  });
}

/** A job row written directly (bulk scenarios, receipts, children). */
async function insertJob(teamId: string, ownerId: string, member: Member, values: Partial<Job> = {}): Promise<Job> {
  const id = crypto.randomUUID();
  const [job] = await writeTx((tx) =>
    tx
    .insert(schema.jobs)
    .values({
      id,
      teamId,
      ownerId,
      kind: 'request',
      memberId: member.id,
      conversationId: member.conversationId!,
      rootId: values.parentId ?? id,
      text: 'seeded',
      requestKey: `seed:${id}`,
      updatedAt: new Date(),
      ...values,
    })
    .returning(),
  );
  return job!;
}

async function refusal(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

/** Follow next_cursor to the end, asserting every page's byte bound; returns every page. */
async function walk<P extends HistoryPage | ResultsPage>(read: (cursor?: string) => Promise<P>): Promise<P[]> {
  const pages: P[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 200; i++) {
    const page = await read(cursor);
    expect(bytesOf(page)).toBeLessThanOrEqual(H.responseBytes);
    pages.push(page);
    if (!page.next_cursor) return pages;
    cursor = page.next_cursor;
  }
  throw new Error('pagination did not end');
}

describe('read_team_history service', () => {
  it('lists retained messages newest first with member, job and literal case-insensitive query filters applied before paging', async () => {
    const { user, team, members } = await setup();
    const [research, review, write] = members;
    const j1 = await request(user.id, team.id, research!.id, 'Find the Release Evidence');
    const j2 = await request(user.id, team.id, review!.id, 'Check the numbers (.*) 100%_done');
    await note(team.id, 'research to write: release evidence attached', { sender: research!.id, recipient: write!.id });
    for (let i = 0; i < 6; i++) await note(team.id, `filler ${i}`);
    await finish(j1, { status: 'completed', result: 'RELEASE EVIDENCE: three sources' });

    const all = await readHistory(team.id, { limit: 20 });
    expect(all.messages).toHaveLength(10);
    expect(all.messages.map((m) => m.seq)).toEqual(await retainedSeqs(team.id));
    expect(all.next_cursor).toBeNull();
    expect(all.messages[0]).toMatchObject({ job_id: j1, kind: 'result', text: 'RELEASE EVIDENCE: three sources', truncated: false, sender: { member_id: research!.id } });
    const first = all.messages.at(-1)!;
    expect(first).toMatchObject({ kind: 'request', job_id: j1, sender: { member_id: null, name: 'You' }, recipient: { member_id: research!.id, name: research!.name } });
    expect(new Date(first.created_at).toISOString()).toBe(first.created_at);

    // query: literal (regex and LIKE characters are plain text), ignoring case; filters apply before paging.
    const evidence = await readHistory(team.id, { query: 'release EVIDENCE', limit: 2 });
    expect(evidence.messages.map((m) => m.text)).toEqual(['RELEASE EVIDENCE: three sources', 'research to write: release evidence attached']);
    expect(evidence.next_cursor).not.toBeNull();
    const rest = await readHistory(team.id, { query: 'release EVIDENCE', limit: 2, cursor: evidence.next_cursor! });
    expect(rest.messages.map((m) => m.text)).toEqual(['Find the Release Evidence']);
    expect(rest.next_cursor).toBeNull();
    expect((await readHistory(team.id, { query: '(.*) 100%_' })).messages.map((m) => m.job_id)).toEqual([j2]);
    expect((await readHistory(team.id, { query: '.*' })).messages.map((m) => m.job_id)).toEqual([j2]);
    expect((await readHistory(team.id, { query: 'no such text' })).messages).toEqual([]);

    // member: sender or recipient; by id or by name ignoring case.
    const ofWrite = await readHistory(team.id, { memberId: write!.id });
    expect(ofWrite.messages.map((m) => m.text)).toEqual(['research to write: release evidence attached']);
    expect((await readHistory(team.id, { memberId: research!.name.toUpperCase() })).messages.map((m) => m.text)).toEqual([
      'RELEASE EVIDENCE: three sources',
      'research to write: release evidence attached',
      'Find the Release Evidence',
    ]);
    // job: the lines about that job.
    expect((await readHistory(team.id, { jobId: j1 })).messages.map((m) => m.kind)).toEqual(['result', 'request']);

    expect(await refusal(() => readHistory(team.id, { memberId: 'nobody' }))).toMatchObject({ status: 400, code: 'unknown_member' });
    expect(await refusal(() => readHistory(team.id, { jobId: 'nope' }))).toMatchObject({ status: 400, code: 'unknown_job' });
  });

  it('defaults to 8 records and accepts limit 1–20 only', async () => {
    const { team } = await setup();
    for (let i = 0; i < 25; i++) await note(team.id, `line ${i}`);
    expect((await readHistory(team.id)).messages).toHaveLength(H.defaultLimit);
    expect((await readHistory(team.id, { limit: 1 })).messages).toHaveLength(1);
    expect((await readHistory(team.id, { limit: 20 })).messages).toHaveLength(20);
    for (const limit of [0, 21, 1.5, -1]) {
      expect(await refusal(() => readHistory(team.id, { limit }))).toMatchObject({ status: 400, code: 'invalid_limit' });
      expect(await refusal(() => searchResults(team.id, { limit }))).toMatchObject({ status: 400, code: 'invalid_limit' });
    }
  });

  it('keeps a cursor stable under new arrivals: page 2 continues exactly where page 1 ended', async () => {
    const { team, members } = await setup();
    for (let i = 0; i < 10; i++) await note(team.id, `old ${i}${i % 2 ? ' match' : ''}`, { sender: members[0]!.id });
    const before = await retainedSeqs(team.id);

    const page1 = await readHistory(team.id, { limit: 4 });
    for (let i = 0; i < 5; i++) await note(team.id, `new ${i} match`, { sender: members[0]!.id });
    const page2 = await readHistory(team.id, { limit: 4, cursor: page1.next_cursor! });
    for (let i = 0; i < 3; i++) await note(team.id, `newer ${i} match`);
    const page3 = await readHistory(team.id, { limit: 4, cursor: page2.next_cursor! });
    const seen = [...page1.messages, ...page2.messages, ...page3.messages].map((m) => m.seq);
    expect(seen).toEqual(before);
    expect(page3.next_cursor).toBeNull();

    // The same with filters (query + member): no duplicates, no gaps among the matching records.
    const filters = { query: 'MATCH', memberId: members[0]!.id };
    const matching = (await readHistory(team.id, { ...filters, limit: 20 })).messages.map((m) => m.seq);
    expect(matching).toHaveLength(10);
    const a = await readHistory(team.id, { ...filters, limit: 4 });
    await note(team.id, 'arrival match', { sender: members[0]!.id });
    const b = await readHistory(team.id, { ...filters, limit: 4, cursor: a.next_cursor! });
    const c = await readHistory(team.id, { ...filters, limit: 4, cursor: b.next_cursor! });
    expect([...a.messages, ...b.messages, ...c.messages].map((m) => m.seq)).toEqual(matching);
    expect(c.next_cursor).toBeNull();
    // A fresh first page is live: it shows the arrival.
    expect((await readHistory(team.id, { ...filters, limit: 1 })).messages[0]!.text).toBe('arrival match');
  });

  it('answers an empty, expired page when the anchor rotated out of the 100-message record', async () => {
    const { team } = await setup();
    for (let i = 0; i < 30; i++) await note(team.id, `early ${i}`);
    const page1 = await readHistory(team.id, { limit: 5 });
    expect(page1.next_cursor).not.toBeNull();
    // 70 arrivals fill the record to exactly 100; 20 more rotate out the 20 oldest, not yet the anchor.
    for (let i = 0; i < 90; i++) await note(team.id, `later ${i}`);
    expect(await retainedSeqs(team.id)).toHaveLength(LIMITS.sharedRecord.retained);
    const stillThere = await readHistory(team.id, { limit: 20, cursor: page1.next_cursor! });
    expect(stillThere.cursor_expired).toBe(false);
    // Live, not a snapshot: the page continues below the anchor with what is still retained.
    expect(stillThere.messages.map((m) => m.text)).toEqual(['early 24', 'early 23', 'early 22', 'early 21', 'early 20']);
    expect(stillThere.next_cursor).toBeNull();
    for (let i = 0; i < 10; i++) await note(team.id, `rotation ${i}`);
    const expired = await readHistory(team.id, { limit: 5, cursor: page1.next_cursor! });
    expect(expired).toEqual({ messages: [], next_cursor: null, cursor_expired: true, bytes_limited: false });
  });

  it('rejects a cursor used with changed filters, another listing, another team or garbage', async () => {
    const { team, members } = await setup();
    const other = await setup();
    for (let i = 0; i < 5; i++) await note(team.id, `alpha ${i}`, { sender: members[0]!.id });
    const cursor = (await readHistory(team.id, { query: 'alpha', limit: 2 })).next_cursor!;
    expect((await readHistory(team.id, { query: 'alpha', limit: 3, cursor })).messages).toHaveLength(3); // limit may change
    for (const changed of [{ query: 'ALPHA' }, { query: 'beta' }, {}, { query: 'alpha', memberId: members[0]!.id }]) {
      expect(await refusal(() => readHistory(team.id, { ...changed, cursor }))).toMatchObject({ status: 400, code: 'cursor_mismatch' });
    }
    expect(await refusal(() => searchResults(team.id, { query: 'alpha', cursor }))).toMatchObject({ code: 'cursor_mismatch' });
    expect(await refusal(() => readHistory(other.team.id, { query: 'alpha', cursor }))).toMatchObject({ code: 'cursor_mismatch' });
    for (const garbage of ['x', 'v1.12', 'v1.abc.0123456789abcdef', `${cursor}x`]) {
      expect(await refusal(() => readHistory(team.id, { query: 'alpha', cursor: garbage }))).toMatchObject({ status: 400, code: 'invalid_cursor' });
    }
  });

  it('keeps every response within 24,000 bytes with escaping-heavy, emoji and CJK texts, returning fewer records', async () => {
    const { team, members } = await setup();
    const escaping = '"\\\n'.repeat(2_000); // 6,000 bytes raw, 12,000 escaped
    const cjk = '界'.repeat(2_000); // 6,000 bytes
    const emoji = '😀'.repeat(1_500); // 6,000 bytes
    const control = '\u0001'.repeat(6_000); // 6,000 bytes raw, 36,000 escaped
    const texts = [escaping, cjk, emoji, escaping, cjk, control, emoji, escaping, cjk, emoji, 'short'];
    for (const t of texts) await note(team.id, t, { sender: members[1]!.id });

    const pages = await walk((cursor) => readHistory(team.id, { limit: 20, cursor }));
    const seqs = pages.flatMap((p) => p.messages.map((m) => m.seq));
    expect(seqs).toEqual(await retainedSeqs(team.id)); // every record once, in order
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages.slice(0, -1)) {
      expect(page.messages.length).toBeLessThan(20);
      expect(page.bytes_limited).toBe(true);
      expect(page.next_cursor).toBe(encodeCursor('history', team.id, {}, page.messages.at(-1)!.seq));
    }
    // Escaping-heavy pages hold one record (two would pass 24,000 bytes); CJK/emoji pages several.
    const byText = (t: string) => pages.find((p) => p.messages[0]!.text === t)!;
    expect(byText(escaping).messages.length).toBeLessThanOrEqual(2);
    // The control-character record alone is 36,000 escaped bytes: it is shortened to fit, never split.
    const shortened = pages.flatMap((p) => p.messages).find((m) => m.text.startsWith('\u0001'))!;
    expect(shortened.truncated).toBe(true);
    expect(shortened.text.length).toBeLessThan(6_000);
    expect(shortened.text.length).toBeGreaterThan(3_000);
    for (const m of pages.flatMap((p) => p.messages)) {
      expect(m.text.isWellFormed()).toBe(true);
      expect(utf8Bytes(m.text)).toBeLessThanOrEqual(H.textBytes);
    }
  });

  it('shortens texts to 6,000 bytes without splitting a character, with truncated flags', async () => {
    const { team } = await setup();
    await note(team.id, 'a'.repeat(6_000));
    await note(team.id, 'a'.repeat(6_001));
    await note(team.id, `a${'😀'.repeat(1_600)}`);
    await note(team.id, `ab${'界'.repeat(2_500)}`);
    const [cjk, emoji, over, exact] = (await walk((cursor) => readHistory(team.id, { limit: 4, cursor }))).flatMap((p) => p.messages);
    expect(exact).toMatchObject({ text: 'a'.repeat(6_000), truncated: false });
    expect(over).toMatchObject({ text: 'a'.repeat(6_000), truncated: true });
    expect(emoji!.text).toBe(`a${'😀'.repeat(1_499)}`);
    expect(emoji!.truncated).toBe(true);
    expect(cjk!.text).toBe(`ab${'界'.repeat(1_999)}`);
    expect(utf8Bytes(cjk!.text)).toBe(5_999);
  });
});

describe('search_team_results service', () => {
  async function seeded() {
    const ctx = await setup();
    const { user, team, members } = ctx;
    const [research, review] = members;
    const done = await request(user.id, team.id, research!.id, 'Collect release evidence');
    await finish(done, { status: 'completed', result: 'Found the Quote from the vendor' });
    const failed = await request(user.id, team.id, review!.id, 'Review the draft');
    await finish(failed, { status: 'failed', error: 'Provider QUOTA exceeded' });
    const cancelled = await request(user.id, team.id, research!.id, 'Cancelled quote search');
    await finish(cancelled, { status: 'cancelled' });
    const queued = await request(user.id, team.id, review!.id, 'Still queued quote');
    const handoff = await insertJob(team.id, user.id, review!, { parentId: done, sourceMemberId: research!.id, sourceConversationId: research!.conversationId, text: 'Verify the quote', status: 'completed', result: 'verified', completedAt: new Date() });
    const receipt = await insertJob(team.id, user.id, research!, { kind: 'receipt', parentId: handoff.id, sourceMemberId: review!.id, text: 'quote receipt', status: 'completed', result: 'Received quote', requestKey: `receipt:${handoff.id}` });
    return { ...ctx, done, failed, cancelled, queued, handoff, receipt };
  }

  it('lists finished requests newest first, excluding unfinished jobs and receipts, and searches request and answer', async () => {
    const { team, members, done, failed, cancelled, handoff } = await seeded();
    const [research, review] = members;
    const all = await searchResults(team.id, { limit: 20 });
    expect(all.results.map((r) => r.job_id)).toEqual([handoff.id, cancelled, failed, done]);
    expect(all.results[0]).toMatchObject({
      status: 'completed',
      member: { member_id: review!.id, name: review!.name },
      requester: { member_id: research!.id, name: research!.name, conversation_id: research!.conversationId },
      parent_id: done,
      answer: { available: true, kind: 'result', excerpt: 'verified', truncated: false },
    });
    expect(all.results[1]).toMatchObject({ status: 'cancelled', answer: { available: false, reason: 'cancelled' }, requester: { member_id: null, name: 'You', conversation_id: null } });
    expect(all.results[2]).toMatchObject({ status: 'failed', answer: { available: true, kind: 'error', excerpt: 'Provider QUOTA exceeded' } });
    expect(all.results[3]).toMatchObject({ request: { excerpt: 'Collect release evidence', truncated: false } });

    // "quote" matches request text (handoff, cancelled) and stored answers (done); never the receipt or the queued job.
    expect((await searchResults(team.id, { query: 'QUOTE' })).results.map((r) => r.job_id)).toEqual([handoff.id, cancelled, done]);
    expect((await searchResults(team.id, { query: 'quota' })).results.map((r) => r.job_id)).toEqual([failed]);
    // member: the member asked or the member asking.
    expect((await searchResults(team.id, { memberId: review!.id })).results.map((r) => r.job_id)).toEqual([handoff.id, failed]);
    expect((await searchResults(team.id, { memberId: research!.id })).results.map((r) => r.job_id)).toEqual([handoff.id, cancelled, done]);
    // job: that request and the handoffs it started.
    expect((await searchResults(team.id, { jobId: done })).results.map((r) => r.job_id)).toEqual([handoff.id, done]);
  });

  it('pages by request creation with stable cursors, and an anchor that is gone answers cursor_expired', async () => {
    const { user, team, members } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const id = await request(user.id, team.id, members[i % 2]!.id, `task ${i}`);
      await finish(id, { status: 'completed', result: `answer ${i}` });
      ids.push(id);
    }
    const page1 = await searchResults(team.id, { limit: 3 });
    const late = await request(user.id, team.id, members[0]!.id, 'late task');
    await finish(late, { status: 'completed', result: 'late answer' });
    const page2 = await searchResults(team.id, { limit: 3, cursor: page1.next_cursor! });
    const page3 = await searchResults(team.id, { limit: 3, cursor: page2.next_cursor! });
    expect([...page1.results, ...page2.results, ...page3.results].map((r) => r.job_id)).toEqual([...ids].reverse());
    expect(page3.next_cursor).toBeNull();
    expect(await refusal(() => searchResults(team.id, { limit: 3, query: 'task', cursor: page1.next_cursor! }))).toMatchObject({ code: 'cursor_mismatch' });
    expect(await refusal(() => readHistory(team.id, { limit: 3, cursor: page1.next_cursor! }))).toMatchObject({ code: 'cursor_mismatch' });
    // Job rows are kept for the team's life; should one ever be removed, its cursor expires cleanly.
    const anchor = page2.results.at(-1)!.job_id;
    await writeTx((tx) => tx.delete(schema.jobs).where(eq(schema.jobs.id, anchor)));
    expect(await searchResults(team.id, { limit: 3, cursor: page2.next_cursor! })).toEqual({ results: [], next_cursor: null, cursor_expired: true, bytes_limited: false });
  });

  it('uses 500-byte excerpts (never splitting a character) and keeps escaping-heavy pages within 24,000 bytes', async () => {
    const { user, team, members } = await setup();
    const texts = ['a'.repeat(500), 'a'.repeat(501), `a${'😀'.repeat(200)}`, `${'界'.repeat(200)}`, '"\\\n'.repeat(400), '\u0002'.repeat(2_000)];
    const ids: string[] = [];
    for (const t of texts) {
      const id = await request(user.id, team.id, members[0]!.id, t);
      await finish(id, { status: 'completed', result: t, truncated: t.length > 1_500 });
      ids.push(id);
    }
    const pages = await walk((cursor) => searchResults(team.id, { limit: 20, cursor }));
    const results = pages.flatMap((p) => p.results);
    expect(results.map((r) => r.job_id)).toEqual([...ids].reverse());
    const byId = new Map(results.map((r) => [r.job_id, r]));
    expect(byId.get(ids[0]!)!.request).toEqual({ excerpt: 'a'.repeat(500), truncated: false });
    expect(byId.get(ids[1]!)!.request).toEqual({ excerpt: 'a'.repeat(500), truncated: true });
    expect(byId.get(ids[2]!)!.request).toEqual({ excerpt: `a${'😀'.repeat(124)}`, truncated: true });
    expect(byId.get(ids[3]!)!.request).toEqual({ excerpt: '界'.repeat(166), truncated: true });
    // The answer was already shortened when stored: truncated stays true.
    expect(byId.get(ids[5]!)!.answer).toMatchObject({ available: true, truncated: true });
    for (const r of results) {
      expect(utf8Bytes(r.request.excerpt)).toBeLessThanOrEqual(H.excerptBytes);
      expect(r.request.excerpt.isWellFormed()).toBe(true);
    }

    // Twenty escaping-heavy requests: a page holds fewer than 20 and says so.
    for (let i = 0; i < 20; i++) await finish(await request(user.id, team.id, members[1]!.id, '\u0003'.repeat(500)), { status: 'completed', result: '\u0003'.repeat(500) });
    const heavy = await searchResults(team.id, { limit: 20, memberId: members[1]!.id });
    expect(bytesOf(heavy)).toBeLessThanOrEqual(H.responseBytes);
    expect(heavy.results.length).toBeLessThan(20);
    expect(heavy.results.length).toBeGreaterThan(0);
    expect(heavy.bytes_limited).toBe(true);
    const next = await searchResults(team.id, { limit: 20, memberId: members[1]!.id, cursor: heavy.next_cursor! });
    expect(next.results[0]!.job_id).not.toBe(heavy.results.at(-1)!.job_id);
  });
});

describe('read_team_result service', () => {
  it('reads a request with member, requester, parent, timestamps, conversation and run ids, excerpt and answer', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const root = await request(user.id, team.id, research!.id, `Root ${'x'.repeat(600)}`);
    const handoff = await insertJob(team.id, user.id, review!, {
      parentId: root,
      rootId: root,
      sourceMemberId: research!.id,
      sourceConversationId: research!.conversationId,
      text: 'Check it',
      status: 'completed',
      result: 'Checked: fine',
      runId: 'run-123',
      admittedAt: new Date(),
      completedAt: new Date(),
    });
    const read = (await readResult(team.id, handoff.id))!;
    expect(read).toEqual({
      job: {
        job_id: handoff.id,
        kind: 'request',
        status: 'completed',
        member: { member_id: review!.id, name: review!.name },
        requester: { member_id: research!.id, name: research!.name, conversation_id: research!.conversationId },
        parent_id: root,
        root_id: root,
        created_at: handoff.createdAt.toISOString(),
        admitted_at: handoff.admittedAt!.toISOString(),
        completed_at: handoff.completedAt!.toISOString(),
        updated_at: handoff.updatedAt.toISOString(),
        conversation: { conversation_id: review!.conversationId, run_id: 'run-123' },
        request: { excerpt: 'Check it', truncated: false },
      },
      result: { available: true, kind: 'result', text: 'Checked: fine', truncated: false },
    });
    const rootRead = (await readResult(team.id, root))!;
    expect(utf8Bytes(rootRead.job.request.excerpt)).toBe(500);
    expect(rootRead.job.request.truncated).toBe(true);
    expect(rootRead.result).toEqual({ available: false, reason: 'unfinished' });
    // Another team's job is not there.
    const other = await setup();
    expect(await readResult(other.team.id, handoff.id)).toBeNull();
  });

  it('distinguishes unfinished, cancelled and no-longer-retained answers; failed jobs show their error', async () => {
    const { user, team, members } = await setup();
    const m = members[0]!;
    const reasons = [];
    for (const status of ['queued', 'running', 'waiting_input', 'resuming', 'cancelling'] as const) {
      reasons.push((await readResult(team.id, (await insertJob(team.id, user.id, m, { status })).id))!.result);
    }
    expect(reasons).toEqual(Array(5).fill({ available: false, reason: 'unfinished' }));
    expect((await readResult(team.id, (await insertJob(team.id, user.id, m, { status: 'cancelled' })).id))!.result).toEqual({ available: false, reason: 'cancelled' });
    expect((await readResult(team.id, (await insertJob(team.id, user.id, m, { status: 'completed', result: null })).id))!.result).toEqual({ available: false, reason: 'not_retained' });
    expect((await readResult(team.id, (await insertJob(team.id, user.id, m, { status: 'failed', error: null })).id))!.result).toEqual({ available: false, reason: 'not_retained' });
    expect((await readResult(team.id, (await insertJob(team.id, user.id, m, { status: 'failed', error: 'boom' })).id))!.result).toEqual({ available: true, kind: 'error', text: 'boom', truncated: false });
  });

  it('reads receipts too (search never lists them)', async () => {
    const { user, team, members } = await setup();
    const [research, review] = members;
    const req = await insertJob(team.id, user.id, review!, { sourceMemberId: research!.id, status: 'completed', result: 'answer' });
    const receipt = await insertJob(team.id, user.id, research!, { kind: 'receipt', parentId: req.id, rootId: req.id, sourceMemberId: review!.id, text: 'answer', status: 'completed', result: 'Received completed result', requestKey: `receipt:${req.id}` });
    expect((await readResult(team.id, receipt.id))!.job).toMatchObject({ kind: 'receipt', parent_id: req.id, member: { member_id: research!.id }, requester: { member_id: review!.id } });
    expect((await searchResults(team.id, { query: 'Received' })).results).toEqual([]);
  });

  it('keeps the answer at 6,000 bytes and the whole response within 24,000 bytes', async () => {
    const { user, team, members } = await setup();
    const plain = await insertJob(team.id, user.id, members[0]!, { status: 'completed', result: '😀'.repeat(1_500), resultTruncated: true });
    expect((await readResult(team.id, plain.id))!.result).toEqual({ available: true, kind: 'result', text: '😀'.repeat(1_500), truncated: true });
    const over = await insertJob(team.id, user.id, members[0]!, { status: 'completed', result: `a${'界'.repeat(2_100)}` });
    const overRead = (await readResult(team.id, over.id))!.result;
    expect(overRead).toEqual({ available: true, kind: 'result', text: `a${'界'.repeat(1_999)}`, truncated: true });
    const heavy = await insertJob(team.id, user.id, members[0]!, { text: '\u0004'.repeat(2_000), status: 'completed', result: '\u0005'.repeat(6_000) });
    const read = (await readResult(team.id, heavy.id))!;
    expect(bytesOf(read)).toBeLessThanOrEqual(H.responseBytes);
    expect(bytesOf(read)).toBeGreaterThan(H.responseBytes - 6); // the longest prefix that fits
    expect(read.result).toMatchObject({ available: true, truncated: true });
  });

  it('keeps results readable after the shared record rotated and after a restart', async () => {
    const { user, team, members } = await setup();
    const id = await request(user.id, team.id, members[0]!.id, 'Gather the durable evidence');
    await finish(id, { status: 'completed', result: 'Durable evidence: the ledger keeps it' });
    expect((await readHistory(team.id, { jobId: id })).messages).toHaveLength(2);
    for (let i = 0; i < 105; i++) await note(team.id, `chatter ${i}`);
    expect((await readHistory(team.id, { jobId: id })).messages).toEqual([]);
    expect((await readHistory(team.id, { query: 'durable' })).messages).toEqual([]);

    await closeDb(); // a restart: the next read opens the database again
    expect((await searchResults(team.id, { query: 'durable' })).results.map((r) => r.job_id)).toEqual([id]);
    expect((await readResult(team.id, id))!.result).toEqual({ available: true, kind: 'result', text: 'Durable evidence: the ledger keeps it', truncated: false });
  });
});

// ───────────────────────────── API ─────────────────────────────

type Handler = (req: Request, ctx: { params: Promise<never> }) => Promise<Response> | Response;
async function get(handler: unknown, url: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await (handler as Handler)(new Request(`http://localhost${url}`, { headers }), { params: Promise.resolve(params) as Promise<never> });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
}

describe('history and results API', () => {
  it('answers 401 without credentials and 404 for another owner', async () => {
    const { user, team, members } = await setup();
    const bob = await makeUser('bob');
    const id = await request(user.id, team.id, members[0]!.id, 'hello');
    for (const [handler, url, params] of [
      [historyGET, `/api/v1/teams/${team.id}/history`, { id: team.id }],
      [resultsGET, `/api/v1/teams/${team.id}/results`, { id: team.id }],
      [resultGET, `/api/v1/teams/${team.id}/results/${id}`, { id: team.id, jobId: id }],
    ] as const) {
      expect((await get(handler, url, params)).status).toBe(401);
      const other = await get(handler, url, params, bob.auth);
      expect(other.status).toBe(404);
      expect(other.body.error?.code).toBe('not_found');
      expect((await get(handler, url, params, user.auth)).status).toBe(200);
    }
    // A job of another team (same owner) is a 404 under this team.
    const second = await setup();
    expect((await get(resultGET, `/x`, { id: second.team.id, jobId: id }, second.user.auth)).status).toBe(404);
  });

  it('mirrors the tool: snake_case or camelCase filters, pages with cursors, 400 on bad parameters', async () => {
    const { user, team, members } = await setup();
    for (let i = 0; i < 5; i++) await note(team.id, `api ${i}`, { sender: members[1]!.id });
    const base = `/api/v1/teams/${team.id}/history`;
    const p = { id: team.id };
    const first = await get(historyGET, `${base}?memberId=${members[1]!.id}&query=API&limit=2`, p, user.auth);
    expect(first.status).toBe(200);
    const page = first.body as unknown as HistoryPage;
    expect(page.messages.map((m) => m.text)).toEqual(['api 4', 'api 3']);
    const second = await get(historyGET, `${base}?member_id=${members[1]!.id}&query=API&limit=2&cursor=${encodeURIComponent(page.next_cursor!)}`, p, user.auth);
    expect((second.body as unknown as HistoryPage).messages.map((m) => m.text)).toEqual(['api 2', 'api 1']);
    expect((await get(historyGET, `${base}?limit=20`, p, user.auth)).status).toBe(200);
    expect((await get(historyGET, `${base}?limit=1`, p, user.auth)).status).toBe(200);

    for (const query of ['limit=0', 'limit=21', 'limit=abc', 'limit=1.5', 'cursor=garbage', `query=API&cursor=${encodeURIComponent(page.next_cursor!)}`, 'color=red', `memberId=a&member_id=b`, 'member_id=nobody', 'job_id=nope', `query=${'q'.repeat(501)}`]) {
      const res = await get(historyGET, `${base}?${query}`, p, user.auth);
      expect(res.status, query).toBe(400);
      expect(res.body.error?.message, query).toBeTruthy();
    }
    // An unknown parameter is named itself, not as "query" (a real parameter of this route).
    const unknown = await get(historyGET, `${base}?color=red`, p, user.auth);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_query', message: 'color: Unknown parameter' });
    expect((await get(resultsGET, `/api/v1/teams/${team.id}/results?color=red&size=2`, p, user.auth)).body.error?.message).toBe('color, size: Unknown parameter');
    expect((await get(historyGET, `${base}?query=${encodeURIComponent('界'.repeat(500))}`, p, user.auth)).status).toBe(200);
    expect((await get(historyGET, `${base}?query=${encodeURIComponent('😀'.repeat(501))}`, p, user.auth)).status).toBe(400);
    expect((await get(resultsGET, `/api/v1/teams/${team.id}/results?limit=21`, p, user.auth)).status).toBe(400);

    const id = await request(user.id, team.id, members[0]!.id, 'api search');
    await finish(id, { status: 'completed', result: 'api answer' });
    const results = await get(resultsGET, `/api/v1/teams/${team.id}/results?query=answer`, p, user.auth);
    expect((results.body as unknown as ResultsPage).results.map((r) => r.job_id)).toEqual([id]);
    const one = await get(resultGET, `/x`, { id: team.id, jobId: id }, user.auth);
    expect(one.body).toMatchObject({ job: { job_id: id }, result: { available: true, text: 'api answer' } });
    expect((await get(resultGET, `/x`, { id: team.id, jobId: 'missing' }, user.auth)).status).toBe(404);
  });
});
