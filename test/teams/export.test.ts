import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { fromMarkdown } from 'mdast-util-from-markdown';
import * as exportRoute from '@/app/api/v1/teams/[id]/export/route';
import type { JobStatus } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { EXPORT_BATCH, fileStem } from '@/server/teams/export';
import { sendRequest } from '@/server/teams/requests';
import { touchTeam } from '@/server/teams/revision';
import { publishEntry, publishState, updateState } from '@/server/teams/state';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

/*
 * GET /teams/:id/export: the Markdown transcript and the JSON document, their contents, that untrusted text can't
 * restructure the Markdown, that a large team streams in bounded steps read lazily, and owner scoping.
 */
type Finish = { status?: JobStatus; result?: string | null; error?: string | null };

async function send(ownerId: string, teamId: string, memberId: string, text: string, finish: Finish = {}): Promise<string> {
  const job = (await sendRequest(ownerId, teamId, { memberIds: [memberId], text, draftKey: `k-${Math.random()}` })).jobs[0]!;
  if (finish.status || finish.result !== undefined || finish.error !== undefined) await setJob(teamId, job.id, finish);
  return job.id;
}

async function setJob(teamId: string, jobId: string, finish: Finish) {
  await writeTx(async (tx) => {
    await tx
      .update(schema.jobs)
      .set({
        ...(finish.status ? { status: finish.status } : {}),
        ...(finish.result !== undefined ? { result: finish.result } : {}),
        ...(finish.error !== undefined ? { error: finish.error } : {}),
        ...(finish.status === 'completed' || finish.status === 'failed' ? { completedAt: new Date() } : {}),
        updatedAt: new Date(),
      })
      .where(eq(schema.jobs.id, jobId));
    await touchTeam(tx, teamId, [jobId]);
  });
}

function get(auth: Record<string, string>, teamId: string, qs: string) {
  return exportRoute.GET(new Request(`http://localhost/api/v1/teams/${teamId}/export?${qs}`, { headers: auth }), { params: Promise.resolve({ id: teamId }) });
}

/** Read a streamed body chunk by chunk (the route's pieces, as the client receives them). */
async function chunksOf(res: Response): Promise<string[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const out: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value, { stream: true }));
  }
}

type MdNode = { type: string; depth?: number; value?: string; children?: MdNode[] };
const walk = (n: MdNode, out: MdNode[] = []) => {
  out.push(n);
  for (const c of n.children ?? []) walk(c, out);
  return out;
};
const textOf = (n: MdNode): string => n.value ?? (n.children ?? []).map(textOf).join('');

async function world() {
  const alice = await makeUser('alice');
  const { team } = await makeTeam(alice.id, ['Research', 'Review']);
  const [research, review] = team.members;
  return { alice, team, research: research!, review: review! };
}

describe('team export: Markdown', () => {
  it('is a readable transcript: name, goal, members, each request with its result or error, and the state', async () => {
    const { alice, team, research, review } = await world();
    await send(alice.id, team.id, research.id, 'Find the Q3 numbers', { status: 'completed', result: 'Revenue rose 12 %.' });
    await send(alice.id, team.id, review.id, 'Check the maths', { status: 'failed', error: 'Provider timed out' });
    await send(alice.id, team.id, review.id, 'Still waiting');
    const actor = { teamId: team.id, memberId: research.id, conversationId: research.conversationId!, jobId: null };
    await publishState(actor, { requestId: 'f1', kind: 'finding', title: 'Q3 revenue', content: '+12 % year on year' });
    const old = await publishState(actor, { requestId: 'p1', kind: 'plan', title: 'Old plan', content: 'Abandoned' });
    await updateState(actor, { entryId: old.entry.id, expectedRevision: old.entry.revision, title: 'Old plan', content: 'Abandoned', status: 'archived' });
    await publishEntry({ teamId: team.id, memberId: null, conversationId: null, jobId: null, keyScope: 'person' }, { requestId: 'o1', kind: 'objective', title: 'Ship by Friday', content: 'Hard deadline' });

    const res = await get(alice.auth, team.id, 'format=md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="team-[a-z0-9-]+-team\.md"; filename\*=UTF-8''/);
    const md = (await chunksOf(res)).join('');
    const tree = fromMarkdown(md) as MdNode;
    const headings = walk(tree).filter((n) => n.type === 'heading').map((n) => `${n.depth}:${textOf(n)}`);
    expect(headings).toEqual([
      `1:${team.name}`,
      '2:Goal',
      '2:Members',
      '2:Usage',
      '2:Requests',
      `3:1. You → @${research.name} · Completed`,
      `3:2. You → @${review.name} · Failed`,
      `3:3. You → @${review.name} · Queued`,
      '2:Team state',
      '3:Objectives',
      '4:Ship by Friday',
      '3:Findings',
      '4:Q3 revenue',
      '3:Archived',
      '4:Old plan',
    ]);
    const code = walk(tree).filter((n) => n.type === 'code').map((n) => n.value);
    expect(code).toEqual(['Ship the thing', 'Find the Q3 numbers', 'Revenue rose 12 %.', 'Check the maths', 'Provider timed out', 'Still waiting', 'Hard deadline', '+12 % year on year', 'Abandoned']);
    const notes = walk(tree).filter((n) => n.type === 'emphasis').map(textOf);
    expect(notes.filter((t) => t.startsWith('sent '))).toHaveLength(3);
    // The times are the server's own text, written as they read (untrusted text alone is escaped).
    expect(md.match(/^_sent \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z(, finished \S+Z)?_$/gm)).toHaveLength(3);
    expect(notes.filter((t) => t.startsWith('By You, revision 1, updated '))).toHaveLength(1);
    expect(notes.filter((t) => t.startsWith(`By @${research.name}, revision `))).toHaveLength(2);
  });

  it('says which earlier request a retry or a follow-up came from, by its number in the document', async () => {
    const { alice, team, research, review } = await world();
    const failed = await send(alice.id, team.id, research.id, 'First try', { status: 'failed', error: 'Provider down' });
    const retry = await send(alice.id, team.id, research.id, 'First try');
    const followUp = await send(alice.id, team.id, review.id, 'Check it');
    await writeTx(async (tx) => {
      await tx.update(schema.jobs).set({ retryOfJobId: failed }).where(eq(schema.jobs.id, retry));
      await tx.update(schema.jobs).set({ parentId: retry, sourceMemberId: research.id }).where(eq(schema.jobs.id, followUp));
    });
    const md = (await chunksOf(await get(alice.auth, team.id, 'format=md'))).join('');
    const notes = walk(fromMarkdown(md) as MdNode).filter((n) => n.type === 'emphasis').map(textOf);
    expect(notes.map((t) => t.replace(/, sent .*$/, '').replace(/^sent .*$/, '-'))).toEqual(['-', 'retry of request 1', 'follow-up to request 2']);
  });

  it('must not let untrusted text restructure it: headings, fences, HTML and links in results, names and titles stay text', async () => {
    const { alice, team, research } = await world();
    const nasty = ['# Injected heading', '```', '````js', 'alert(1)', '````', '<script>alert(1)</script>', '[click](javascript:alert(1))', '~~~', '- [ ] item'].join('\n');
    await send(alice.id, team.id, research.id, nasty, { status: 'completed', result: `${nasty}\n\`\`\`\`\`\`` });
    await writeTx(async (tx) => {
      await tx.update(schema.teamMembers).set({ name: '# Evil *name* [x](y) <b>' }).where(eq(schema.teamMembers.id, research.id));
      await tx.update(schema.teams).set({ name: 'Team\n# Second heading `x`' }).where(eq(schema.teams.id, team.id));
    });
    const actor = { teamId: team.id, memberId: research.id, conversationId: research.conversationId!, jobId: null };
    await publishState(actor, { requestId: 'n1', kind: 'finding', title: '## Not a heading', content: nasty });

    const md = (await chunksOf(await get(alice.auth, team.id, 'format=md'))).join('');
    const nodes = walk(fromMarkdown(md) as MdNode);
    const headings = nodes.filter((n) => n.type === 'heading').map((n) => `${n.depth}:${textOf(n)}`);
    expect(headings).toContain('1:Team # Second heading `x`');
    expect(headings).toContain('3:1. You → @# Evil *name* [x](y) <b> · Completed');
    expect(headings).toContain('4:## Not a heading');
    expect(headings.filter((h) => h.includes('Injected'))).toEqual([]);
    // Nothing became HTML, a link, code or strong text; the one list is the roster (two members), and emphasis is
    // only the export's own notes. Each text is exactly one code block's value.
    expect(nodes.filter((n) => ['html', 'link', 'strong', 'inlineCode', 'image'].includes(n.type))).toEqual([]);
    expect(nodes.filter((n) => n.type === 'listItem')).toHaveLength(2);
    expect(nodes.filter((n) => n.type === 'emphasis').map(textOf).every((t) => /^(sent |By )/.test(t))).toBe(true);
    const code = nodes.filter((n) => n.type === 'code').map((n) => n.value);
    expect(code).toContain(nasty);
    expect(code).toContain(`${nasty}\n\`\`\`\`\`\``);
    expect(code.filter((c) => c === nasty)).toHaveLength(2); // the request and the state entry
  });
});

describe('team export: JSON', () => {
  it('holds everything with ids and times: team, members, every job (receipts too), every state entry', async () => {
    const { alice, team, research, review } = await world();
    const a = await send(alice.id, team.id, research.id, '研究して 🤖', { status: 'completed', result: '結果 ✅' });
    const b = await send(alice.id, team.id, review.id, 'Review', { status: 'cancelled' });
    // An answer waiting for a slot: exported without its idempotency key.
    await writeTx((tx) => tx.update(schema.jobs).set({ answer: { type: 'clarification', text: 'EU', questionId: 'q', answerKey: 'secret-key' } }).where(eq(schema.jobs.id, b)));
    const actor = { teamId: team.id, memberId: review.id, conversationId: review.conversationId!, jobId: null };
    await publishState(actor, { requestId: 'q1', kind: 'question', title: 'Which market?', content: 'EU or US' });

    const res = await get(alice.auth, team.id, 'format=json');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = JSON.parse((await chunksOf(res)).join(''));
    expect(doc).toMatchObject({
      format: 'ensemble.team-export',
      version: 1,
      team: { id: team.id, name: team.name, goal: 'Ship the thing', createdAt: expect.stringMatching(/Z$/) },
      members: [
        { id: research.id, name: research.name, agentId: research.agentId, conversationId: research.conversationId },
        { id: review.id, name: review.name },
      ],
    });
    expect(doc.jobs.map((j: { id: string }) => j.id)).toEqual([a, b]);
    expect(doc.jobs[0]).toMatchObject({ kind: 'request', memberId: research.id, status: 'completed', text: '研究して 🤖', result: '結果 ✅', createdAt: expect.any(String), completedAt: expect.any(String) });
    expect(doc.jobs[1]).toMatchObject({ status: 'cancelled', completedAt: null, answer: { type: 'clarification', text: 'EU', questionId: 'q' } });
    // Internal keys and the frozen run input are not part of the export.
    expect(Object.keys(doc.jobs[0])).not.toContain('requestKey');
    expect(Object.keys(doc.jobs[0])).not.toContain('frozenInput');
    expect(JSON.stringify(doc)).not.toContain('answerKey');
    expect(doc.state).toEqual([expect.objectContaining({ kind: 'question', title: 'Which market?', content: 'EU or US', createdBy: { memberId: review.id, name: review.name } })]);
  });

  it('is valid JSON for a team with no jobs and no state', async () => {
    const { alice, team } = await world();
    const doc = JSON.parse((await chunksOf(await get(alice.auth, team.id, 'format=json'))).join(''));
    expect(doc.jobs).toEqual([]);
    expect(doc.state).toEqual([]);
  });
});

describe('team export: streaming', () => {
  it('streams a full team (100 requests at the text and result limits) in bounded steps, reading each batch when it is pulled', async () => {
    const { alice, team, research, review } = await world();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      ids.push(await send(alice.id, team.id, i % 2 ? research.id : review.id, `${i} ${'研'.repeat(2_600)}`, { status: 'completed', result: `r${i} ${'🤖'.repeat(1_490)}` }));
    }
    const res = await get(alice.auth, team.id, 'format=json');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    // A change made after the stream started but before the last batch is read shows in the export: the batches
    // are read on demand, not gathered up front.
    await setJob(team.id, ids[99]!, { result: 'changed after the export began' });
    const sizes = [first.value!.byteLength];
    let text = decoder.decode(first.value, { stream: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sizes.push(value.byteLength);
      text += decoder.decode(value, { stream: true });
    }
    const doc = JSON.parse(text);
    expect(doc.jobs).toHaveLength(100);
    expect(doc.jobs[99].result).toBe('changed after the export began');
    // Head, one piece per batch, tail — and no piece holds more than one batch.
    expect(sizes.length).toBe(2 + 100 / EXPORT_BATCH);
    expect(Math.max(...sizes)).toBeLessThan(EXPORT_BATCH * 15_000);
  });

  it('a job added after the export began is not in it; a team deleted mid-export fails the download instead of ending it early', async () => {
    const { alice, team, research } = await world();
    for (let i = 0; i < EXPORT_BATCH + 1; i++) await send(alice.id, team.id, research.id, `job ${i}`);
    const res = await get(alice.auth, team.id, 'format=md');
    const reader = res.body!.getReader();
    await reader.read(); // the head
    await send(alice.id, team.id, research.id, 'too late');
    const batch = new TextDecoder().decode((await reader.read()).value);
    expect(batch).toContain('job 0');
    await writeTx((tx) => tx.delete(schema.teams).where(eq(schema.teams.id, team.id)));
    await expect(reader.read()).rejects.toMatchObject({ status: 404 });
  });
});

describe('team export: access', () => {
  it('must not export another owner’s team: 404 with no body streamed, like a team that never existed', async () => {
    const { alice, team, research } = await world();
    await send(alice.id, team.id, research.id, 'alice secret', { status: 'completed', result: 'secret result' });
    const bob = await makeUser('bob');
    const foreign = await get(bob.auth, team.id, 'format=md');
    const missing = await get(bob.auth, 'no-such-team', 'format=md');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const [foreignBody, missingBody] = [await foreign.text(), await missing.text()];
    expect(foreignBody).not.toContain('secret');
    expect(foreignBody.replaceAll(team.id, 'X')).toBe(missingBody.replaceAll('no-such-team', 'X'));
    expect((await get(bob.auth, team.id, 'format=json')).status).toBe(404);
  });

  it('refuses a missing or unknown format and an unsigned caller', async () => {
    const { alice, team } = await world();
    expect((await get(alice.auth, team.id, '')).status).toBe(422);
    expect((await get(alice.auth, team.id, 'format=html')).status).toBe(422);
    expect((await get(alice.auth, team.id, 'format=md&x=1')).status).toBe(422);
    expect((await get({}, team.id, 'format=md')).status).toBe(401);
  });

  it('names the file in ASCII and keeps a CJK or emoji team name in filename*', async () => {
    const { alice, team } = await world();
    await writeTx((tx) => tx.update(schema.teams).set({ name: '売上 Q3 🚀 "launch"' }).where(eq(schema.teams.id, team.id)));
    const res = await get(alice.auth, team.id, 'format=json');
    const header = res.headers.get('content-disposition')!;
    expect(header).toBe(`attachment; filename="q3-launch-team.json"; filename*=UTF-8''${encodeURIComponent('売上 Q3 🚀 "launch" team.json')}`);
    expect(fileStem('研究')).toBe('team');
    expect(fileStem('Café Déjà vu')).toBe('cafe-deja-vu-team');
    await res.body!.cancel();
  });
});
